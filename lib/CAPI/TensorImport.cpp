//===- TensorImport.cpp - DLPack tensors as the driver's tensors ----------===//

#include "TensorImport.h"

#include <cmath>
#include <cstring>

using namespace gdn;
using namespace gdn::capi;

namespace {
bool dtypeOf(const DLDataType &t, DType &dtype) {
  if (t.lanes != 1)
    return false;
  switch (t.code) {
  case kDLBfloat:
    dtype = DType::BF16;
    return t.bits == 16;
  case kDLFloat:
    if (t.bits == 16)
      dtype = DType::F16;
    else if (t.bits == 32)
      dtype = DType::F32;
    else if (t.bits == 64)
      dtype = DType::F64;
    else
      return false;
    return true;
  case kDLInt:
    if (t.bits == 32)
      dtype = DType::I32;
    else if (t.bits == 64)
      dtype = DType::I64;
    else
      return false;
    return true;
  default:
    return false;
  }
}

std::string dlDTypeName(const DLDataType &t) {
  const char *code = t.code == kDLInt     ? "int"
                     : t.code == kDLUInt  ? "uint"
                     : t.code == kDLFloat ? "float"
                     : t.code == kDLBfloat ? "bfloat"
                                           : "code";
  std::string s = code + std::to_string(t.bits);
  if (t.lanes != 1)
    s += "x" + std::to_string(t.lanes);
  return s;
}
} // namespace

int64_t TensorView::numel() const {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

bool TensorView::compact() const {
  if (numel() == 0) // no element to lay out (producers give such any strides)
    return true;
  int64_t expected = 1;
  for (size_t i = shape.size(); i-- > 0;) {
    if (shape[i] != 1 && strides[i] != expected)
      return false;
    expected *= shape[i];
  }
  return true;
}

bool TensorView::compactRows() const {
  if (shape.empty() || numel() == 0)
    return true;
  int64_t expected = 1;
  for (size_t i = shape.size(); i-- > 1;) {
    if (shape[i] != 1 && strides[i] != expected)
      return false;
    expected *= shape[i];
  }
  return shape[0] <= 1 || strides[0] >= expected;
}

std::string TensorView::describe() const {
  return std::string(dtypeName(dtype)) + shapeToString(shape);
}

Status capi::viewTensor(const std::string &name, const DLTensor &t,
                        TensorView &view) {
  view = TensorView();
  view.name = name;
  if (!dtypeOf(t.dtype, view.dtype))
    return Status::typeError("tensor '" + name + "' has dtype " +
                             dlDTypeName(t.dtype) +
                             "; expected bfloat16, float16, float32, "
                             "float64, int32 or int64");
  if (t.device.device_type == kDLCUDA ||
      t.device.device_type == kDLCUDAManaged) {
    view.onHost = false;
    view.deviceId = t.device.device_id;
  }
  else if (t.device.device_type != kDLCPU &&
           t.device.device_type != kDLCUDAHost)
    return Status::typeError("tensor '" + name + "' lives on DLPack device "
                             "type " + std::to_string(t.device.device_type) +
                             "; expected the host (1) or a CUDA device (2)");
  if (t.ndim < 0 || (t.ndim > 0 && !t.shape))
    return Status::error("tensor '" + name + "' has no shape");
  view.shape.assign(t.shape, t.shape + t.ndim);
  for (int64_t d : view.shape)
    if (d < 0)
      return Status::error("tensor '" + name + "' has a negative dimension " +
                           shapeToString(view.shape));
  view.strides.resize(view.shape.size());
  int64_t stride = 1;
  for (size_t i = view.shape.size(); i-- > 0;) {
    view.strides[i] = t.strides ? t.strides[i] : stride;
    stride *= view.shape[i];
  }
  for (int64_t s : view.strides)
    if (s < 0)
      return Status::error("tensor '" + name + "' " + view.describe() +
                           " has a negative stride; expected a row-major "
                           "layout");
  view.data = static_cast<char *>(t.data) + t.byte_offset;
  if (!t.data && view.numel() > 0)
    return Status::error("tensor '" + name + "' " + view.describe() +
                         " has no data pointer");
  return Status::success();
}

HostTensor capi::copyToHost(const TensorView &view) {
  HostTensor h;
  h.dtype = view.dtype;
  h.shape = view.shape;
  const size_t es = elementSize(view.dtype);
  h.data.resize(static_cast<size_t>(view.numel()) * es);
  if (view.compact()) {
    std::memcpy(h.data.data(), view.data, h.data.size());
    return h;
  }
  // Walk the index space in row-major order.
  std::vector<int64_t> index(view.shape.size(), 0);
  for (int64_t i = 0, n = view.numel(); i < n; ++i) {
    int64_t offset = 0;
    for (size_t d = 0; d < index.size(); ++d)
      offset += index[d] * view.strides[d];
    std::memcpy(h.data.data() + i * es, view.data + offset * es, es);
    for (size_t d = index.size(); d-- > 0;) {
      if (++index[d] < view.shape[d])
        break;
      index[d] = 0;
    }
  }
  return h;
}

HostTensor capi::shapeOnly(const TensorView &view) {
  HostTensor h;
  h.dtype = view.dtype;
  h.shape = view.shape;
  return h;
}

namespace {
int64_t rowElements(const TensorView &pool) {
  int64_t n = 1;
  for (size_t i = 1; i < pool.shape.size(); ++i)
    n *= pool.shape[i];
  return n;
}
} // namespace

int64_t capi::poolRowStride(const TensorView &pool) {
  if (pool.shape.empty() || pool.shape[0] <= 1 ||
      pool.strides[0] == rowElements(pool))
    return 0;
  return pool.strides[0];
}

run::CallFlags capi::callFlags(const gdn_call_flags &flags) {
  run::CallFlags f;
  f.pageSize = flags.page_size;
  f.chunkSize = flags.chunk_size;
  if (flags.has_scale)
    f.scale = flags.scale;
  f.gateDomain =
      flags.gate_domain == GDN_GATE_LOG ? GateDomain::Log : GateDomain::Linear;
  f.useGateInKernel = flags.use_gate_in_kernel != 0;
  f.betaIsLogit = flags.beta_is_logit != 0;
  f.qkL2norm = flags.qk_l2norm != 0;
  return f;
}

Status capi::checkFiniteValues(const TensorView &view) {
  const int64_t n = view.numel();
  auto refuse = [&](int64_t i, float x) {
    return Status::error("tensor '" + view.name + "' " + view.describe() +
                         " has a non-finite value (" + std::to_string(x) +
                         ") at element " + std::to_string(i));
  };
  const auto *bits = reinterpret_cast<const uint16_t *>(view.data);
  switch (view.dtype) {
  case DType::F16: // exponent all ones: inf or NaN
    for (int64_t i = 0; i < n; ++i)
      if ((bits[i] & 0x7C00) == 0x7C00)
        return refuse(i, f16ToFloat(bits[i]));
    break;
  case DType::BF16:
    for (int64_t i = 0; i < n; ++i)
      if ((bits[i] & 0x7F80) == 0x7F80)
        return refuse(i, bf16ToFloat(bits[i]));
    break;
  case DType::F32: {
    const auto *x = reinterpret_cast<const float *>(view.data);
    for (int64_t i = 0; i < n; ++i)
      if (!std::isfinite(x[i]))
        return refuse(i, x[i]);
    break;
  }
  default:
    break;
  }
  return Status::success();
}

Status capi::checkOutput(const TensorView &out, const HostTensor &v) {
  if (out.dtype != v.dtype)
    return Status::typeError("tensor 'o' is " + out.describe() +
                             "; expected the dtype of v (" +
                             dtypeName(v.dtype) + ")");
  if (out.shape != v.shape)
    return Status::error("tensor 'o' is " + out.describe() +
                         "; expected shape " + shapeToString(v.shape) +
                         " (that of v: [T, HV, V])");
  return Status::success();
}
