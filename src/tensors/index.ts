/** Public API of `tensors`: safetensors files read and written tensor by tensor, and 16-bit float conversions. */
export * from '../core/float-format.js';
export * from './safetensors.js';
