// Table application for P3109 operation specializations (src/ops/lut-kernel.ts): the host builds the 256- or
// 65 536-entry result table from the exact core and uploads it; these kernels only gather. Codes are validated by
// the host (every index is < the table length).

/** dst[i] = table[a[i] * nb + b[i]] for byte codes and byte results (binary operations, ≤ 8-bit formats). */
export function lutApply2x8(a: usize, b: usize, dst: usize, n: usize, table: usize, nb: usize): void {
  let i: usize = 0;
  for (; i + 4 <= n; i += 4) {
    const x = a + i;
    const y = b + i;
    const d = dst + i;
    store<u8>(d, load<u8>(table + (<usize>load<u8>(x, 0)) * nb + <usize>load<u8>(y, 0)), 0);
    store<u8>(d, load<u8>(table + (<usize>load<u8>(x, 1)) * nb + <usize>load<u8>(y, 1)), 1);
    store<u8>(d, load<u8>(table + (<usize>load<u8>(x, 2)) * nb + <usize>load<u8>(y, 2)), 2);
    store<u8>(d, load<u8>(table + (<usize>load<u8>(x, 3)) * nb + <usize>load<u8>(y, 3)), 3);
  }
  for (; i < n; i++) store<u8>(dst + i, load<u8>(table + (<usize>load<u8>(a + i)) * nb + <usize>load<u8>(b + i)));
}

/** dst[i] = table[a[i]] for byte codes and byte results (unary operations, ≤ 8-bit formats). */
export function lutApply1x8(a: usize, dst: usize, n: usize, table: usize): void {
  let i: usize = 0;
  for (; i + 4 <= n; i += 4) {
    const x = a + i;
    const d = dst + i;
    store<u8>(d, load<u8>(table + <usize>load<u8>(x, 0)), 0);
    store<u8>(d, load<u8>(table + <usize>load<u8>(x, 1)), 1);
    store<u8>(d, load<u8>(table + <usize>load<u8>(x, 2)), 2);
    store<u8>(d, load<u8>(table + <usize>load<u8>(x, 3)), 3);
  }
  for (; i < n; i++) store<u8>(dst + i, load<u8>(table + <usize>load<u8>(a + i)));
}
