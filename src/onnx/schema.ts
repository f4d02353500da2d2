// The ONNX protobuf messages (onnx.proto, proto2), written out here with the field numbers of the ONNX
// specification and read/written with protobufjs. Every message and field of the specification is declared, so a
// model read and written again keeps all of its contents (protobufjs drops fields its schema does not know).
import protobuf from "protobufjs";

const SCHEMA = `syntax = "proto2";
package onnx;
message AttributeProto {
  optional string name = 1; optional string ref_attr_name = 21; optional string doc_string = 13; optional int32 type = 20;
  optional float f = 2; optional int64 i = 3; optional bytes s = 4; optional TensorProto t = 5; optional GraphProto g = 6;
  optional SparseTensorProto sparse_tensor = 22; optional TypeProto tp = 14;
  repeated float floats = 7; repeated int64 ints = 8; repeated bytes strings = 9; repeated TensorProto tensors = 10;
  repeated GraphProto graphs = 11; repeated SparseTensorProto sparse_tensors = 23; repeated TypeProto type_protos = 15;
}
message ValueInfoProto { optional string name = 1; optional TypeProto type = 2; optional string doc_string = 3; repeated StringStringEntryProto metadata_props = 4; }
message NodeProto {
  repeated string input = 1; repeated string output = 2; optional string name = 3; optional string op_type = 4; optional string domain = 7;
  optional string overload = 8; repeated AttributeProto attribute = 5; optional string doc_string = 6;
  repeated StringStringEntryProto metadata_props = 9; repeated NodeDeviceConfigurationProto device_configurations = 10;
}
message IntIntListEntryProto { optional int64 key = 1; repeated int64 value = 2; }
message NodeDeviceConfigurationProto { optional string configuration_id = 1; repeated ShardingSpecProto sharding_spec = 2; optional int32 pipeline_stage = 3; }
message ShardingSpecProto {
  optional string tensor_name = 1; repeated int64 device = 2; repeated IntIntListEntryProto index_to_device_group_map = 3; repeated ShardedDimProto sharded_dim = 4;
}
message ShardedDimProto { optional int64 axis = 1; repeated SimpleShardedDimProto simple_sharding = 2; }
message SimpleShardedDimProto { oneof dim { int64 dim_value = 1; string dim_param = 2; } optional int64 num_shards = 3; }
message TrainingInfoProto {
  optional GraphProto initialization = 1; optional GraphProto algorithm = 2;
  repeated StringStringEntryProto initialization_binding = 3; repeated StringStringEntryProto update_binding = 4;
}
message ModelProto {
  optional int64 ir_version = 1; repeated OperatorSetIdProto opset_import = 8; optional string producer_name = 2; optional string producer_version = 3;
  optional string domain = 4; optional int64 model_version = 5; optional string doc_string = 6; optional GraphProto graph = 7;
  repeated StringStringEntryProto metadata_props = 14; repeated TrainingInfoProto training_info = 20; repeated FunctionProto functions = 25;
  repeated DeviceConfigurationProto configuration = 26;
}
message DeviceConfigurationProto { optional string name = 1; optional int32 num_devices = 2; repeated string device = 3; }
message StringStringEntryProto { optional string key = 1; optional string value = 2; }
message TensorAnnotation { optional string tensor_name = 1; repeated StringStringEntryProto quant_parameter_tensor_names = 2; }
message GraphProto {
  repeated NodeProto node = 1; optional string name = 2; repeated TensorProto initializer = 5; repeated SparseTensorProto sparse_initializer = 15;
  optional string doc_string = 10; repeated ValueInfoProto input = 11; repeated ValueInfoProto output = 12; repeated ValueInfoProto value_info = 13;
  repeated TensorAnnotation quantization_annotation = 14; repeated StringStringEntryProto metadata_props = 16;
}
message TensorProto {
  message Segment { optional int64 begin = 1; optional int64 end = 2; }
  repeated int64 dims = 1; optional int32 data_type = 2; optional Segment segment = 3;
  repeated float float_data = 4 [packed = true]; repeated int32 int32_data = 5 [packed = true]; repeated bytes string_data = 6;
  repeated int64 int64_data = 7 [packed = true]; optional string name = 8; optional string doc_string = 12; optional bytes raw_data = 9;
  repeated StringStringEntryProto external_data = 13; optional int32 data_location = 14;
  repeated double double_data = 10 [packed = true]; repeated uint64 uint64_data = 11 [packed = true]; repeated StringStringEntryProto metadata_props = 16;
}
message SparseTensorProto { optional TensorProto values = 1; optional TensorProto indices = 2; repeated int64 dims = 3; }
message TensorShapeProto {
  message Dimension { oneof value { int64 dim_value = 1; string dim_param = 2; } optional string denotation = 3; }
  repeated Dimension dim = 1;
}
message TypeProto {
  message Tensor { optional int32 elem_type = 1; optional TensorShapeProto shape = 2; }
  message Sequence { optional TypeProto elem_type = 1; }
  message Map { optional int32 key_type = 1; optional TypeProto value_type = 2; }
  message Optional { optional TypeProto elem_type = 1; }
  message SparseTensor { optional int32 elem_type = 1; optional TensorShapeProto shape = 2; }
  message Opaque { optional string domain = 1; optional string name = 2; }
  oneof value {
    Tensor tensor_type = 1; Sequence sequence_type = 4; Map map_type = 5; Optional optional_type = 9; SparseTensor sparse_tensor_type = 8; Opaque opaque_type = 7;
  }
  optional string denotation = 6;
}
message OperatorSetIdProto { optional string domain = 1; optional int64 version = 2; }
message FunctionProto {
  optional string name = 1; repeated string input = 4; repeated string output = 5; repeated string attribute = 6; repeated AttributeProto attribute_proto = 11;
  repeated NodeProto node = 7; optional string doc_string = 8; repeated OperatorSetIdProto opset_import = 9; optional string domain = 10;
  optional string overload = 13; repeated ValueInfoProto value_info = 12; repeated StringStringEntryProto metadata_props = 14;
}
`;

/** An int64 field as protobufjs gives it: a number, or a Long when the value needs more than 53 bits. */
export type Int64 = number | { toNumber(): number };

/** The parts of the messages this module reads and writes (the decoded objects carry every other field too). */
export interface TensorProto {
  dims: Int64[];
  data_type?: number;
  name?: string;
  raw_data?: Uint8Array;
  float_data: number[];
  int32_data: number[];
  int64_data: Int64[];
  double_data: number[];
  uint64_data: Int64[];
  string_data: Uint8Array[];
  external_data: { key?: string; value?: string }[];
  data_location?: number;
  segment?: unknown;
}
export interface SparseTensorProto {
  values?: TensorProto;
  indices?: TensorProto;
  dims?: Int64[];
}
export interface AttributeProto {
  name?: string;
  type?: number;
  f?: number;
  i?: Int64;
  s?: Uint8Array;
  t?: TensorProto;
  g?: GraphProto;
  sparse_tensor?: SparseTensorProto;
  floats?: number[];
  ints?: Int64[];
  strings?: Uint8Array[];
  tensors?: TensorProto[];
  graphs: GraphProto[];
  sparse_tensors?: SparseTensorProto[];
}
export interface NodeProto {
  input: string[];
  output: string[];
  name?: string;
  op_type?: string;
  domain?: string;
  attribute: AttributeProto[];
}
export interface GraphProto {
  name?: string;
  node: NodeProto[];
  initializer: TensorProto[];
  sparse_initializer?: SparseTensorProto[];
  input: { name?: string }[];
  output: { name?: string }[];
}
export interface OperatorSetId {
  domain?: string;
  version?: Int64;
}
/** A model-local function: its body and the opsets it imports (the fields read here). */
export interface FunctionProto {
  node?: NodeProto[];
  opset_import?: OperatorSetId[];
}
export interface ModelProto {
  ir_version?: Int64;
  opset_import: OperatorSetId[];
  graph?: GraphProto;
  functions: FunctionProto[];
}

const root = protobuf.parse(SCHEMA, { keepCase: true }).root;
const Model = root.lookupType("onnx.ModelProto");
const Tensor = root.lookupType("onnx.TensorProto");
const Node = root.lookupType("onnx.NodeProto");
const Attribute = root.lookupType("onnx.AttributeProto");

export function int(v: Int64 | undefined): number {
  return v === undefined ? 0 : typeof v === "number" ? v : v.toNumber();
}

/** Decodes a model; throws protobufjs's error for bytes that are not a ModelProto. */
export function decodeModel(bytes: Uint8Array): ModelProto {
  return Model.decode(bytes) as unknown as ModelProto;
}

export function encodeModel(model: ModelProto): Uint8Array {
  return Model.encode(model as unknown as protobuf.Message).finish();
}

/** New messages with every repeated field present (as decoded ones have). */
export function newTensor(fields: Partial<TensorProto>): TensorProto {
  return Tensor.create(fields) as unknown as TensorProto;
}
export function newNode(fields: Partial<NodeProto>): NodeProto {
  return Node.create(fields) as unknown as NodeProto;
}
export function newAttribute(fields: Partial<AttributeProto>): AttributeProto {
  return Attribute.create(fields) as unknown as AttributeProto;
}
