//===- Launch.cpp - kernel arguments for a validated problem --------------===//

#include "gdn/Driver/Launch.h"

#include <algorithm>
#include <cmath>

using namespace gdn;
using namespace gdn::run;

KernelShape run::shapeOf(const Problem &p) {
  KernelShape s;
  s.K = p.dims.K;
  s.V = p.dims.V;
  s.io = p.tensors.at("q").dtype;
  s.state = p.tensors.at("state_pool").dtype;
  if (p.flags.chunkSize) // bound by bindChunkSize; 0 before
    s.chunk = p.flags.chunkSize;
  return s;
}

namespace {
KernelArg asBuffer(const std::string &name, HostTensor &t) {
  return KernelArg::buffer(name, t.data.data(), t.dtype, t.shape);
}
} // namespace

Status run::prepareCall(Problem &p, HostTensor &o, PreparedCall &call) {
  TensorMap &t = p.tensors;
  const GdnDims &d = p.dims;
  call = PreparedCall();
  call.shape = shapeOf(p);
  call.grid = Grid{d.HV(), p.batch(), 1};
  call.chunkSlots = chunkSlotsFor(p.longestSequence(), p.dims.T,
                                  p.batch(), call.shape.chunk);
  // Device calls bring their own output.
  o = p.shapesOnly ? HostTensor() : HostTensor::zeros(t["v"].dtype, t["v"].shape);
  o.dtype = t["v"].dtype;
  o.shape = t["v"].shape;

  // A converted copy that lives as long as the call.
  auto owned = [&](const std::string &name, DType dtype) -> KernelArg {
    const HostTensor &src = t.at(name);
    if (src.dtype == dtype)
      return asBuffer(name, t.at(name));
    if (dtype == DType::I64)
      call.owned.push_back(
          HostTensor::fromIndices(DType::I64, src.shape, src.toIndices()));
    else
      call.owned.push_back(
          HostTensor::fromDoubles(dtype, src.shape, src.toDoubles()));
    return asBuffer(name, call.owned.back());
  };
  auto zerosF32 = [&](const std::string &name, int64_t n) -> KernelArg {
    call.owned.push_back(HostTensor::zeros(DType::F32, {n}));
    return asBuffer(name + " (unused)", call.owned.back());
  };
  const float scale = static_cast<float>(
      p.flags.scale ? *p.flags.scale : 1.0 / std::sqrt(double(d.K)));
  auto &args = call.args;
  args.push_back(asBuffer("q", t["q"]));
  args.push_back(asBuffer("k", t["k"]));
  args.push_back(asBuffer("v", t["v"]));
  if (p.interface == Interface::Pool) {
    call.entry = "gdn_pool";
    args.push_back(owned("a", DType::F32));
    args.push_back(owned("b", DType::F32));
    args.push_back(owned("A_log", DType::F32));
    args.push_back(owned("dt_bias", DType::F32));
    args.push_back(asBuffer("state_pool", t["state_pool"]));
    args.push_back(owned("cache_indices", DType::I64));
    args.push_back(owned("cu_seqlens", DType::I64));
    args.push_back(asBuffer("o", o));
    args.push_back(KernelArg::f32Value("scale", scale));
    return Status::success();
  }
  call.entry = "gdn_paged";
  args.push_back(owned("g", DType::F32));
  args.push_back(owned("beta", DType::F32));
  if (p.flags.useGateInKernel) {
    args.push_back(owned("A_log", DType::F32));
    args.push_back(owned("dt_bias", DType::F32));
  } else {
    args.push_back(zerosF32("A_log", d.HV()));
    args.push_back(zerosF32("dt_bias", d.HV()));
  }
  args.push_back(asBuffer("state_pool", t["state_pool"]));
  args.push_back(owned("page_indices", DType::I64));
  args.push_back(owned("page_indptr", DType::I64));
  args.push_back(owned("last_page_len", DType::I64));
  args.push_back(owned("cu_seqlens", DType::I64));
  args.push_back(asBuffer("o", o));
  args.push_back(KernelArg::indexValue("page_size", p.flags.pageSize));
  args.push_back(KernelArg::f32Value("scale", scale));
  // Gate domain codes of the kernel: 0 raw, 1 log, 2 linear.
  int64_t domain = p.flags.useGateInKernel              ? 0
                   : p.flags.gateDomain == GateDomain::Log ? 1
                                                          : 2;
  args.push_back(KernelArg::indexValue("gate_domain", domain));
  args.push_back(KernelArg::i1Value("beta_is_logit", p.flags.betaIsLogit));
  args.push_back(KernelArg::i1Value("qk_l2norm", p.flags.qkL2norm));
  return Status::success();
}
