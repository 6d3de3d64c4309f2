/**
 * The `tensors` namespace of coreb's public API (`import { tensors } from 'coreb'`): safetensors files
 * read and written tensor by tensor, and 16-bit float conversions.
 * @packageDocumentation
 */
export {
  FLOAT_DTYPES,
  bf16ToFloat64,
  decodeFloats,
  encodeFloats,
  f16ToFloat64,
  float64ToBf16,
  float64ToF16,
  openSafetensors,
  saveSafetensors,
  type FloatDtype,
  type SafetensorsReader,
  type SaveSafetensorsOptions,
  type TensorInfo,
  type TensorPlan,
} from '../tensors/index.js';
