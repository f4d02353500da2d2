export function renderAssembly(): string;
export function renderTypeScript(): string;
