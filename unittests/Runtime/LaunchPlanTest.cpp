// Flag-bound entries (gdn-specialize-entries): which entry a call runs,
// and the bound arguments' trip through an artifact's manifest.

#include "gdn/Runtime/Artifact.h"
#include "gdn/Runtime/LaunchPlan.h"

#include <gtest/gtest.h>

#include <filesystem>

#include <unistd.h>

using namespace gdn;

namespace {
LaunchPlan boundPlan(std::vector<int64_t> bound) {
  LaunchPlan plan = LaunchPlan::single("unused");
  plan.specializedFrom = "gdn_paged";
  plan.boundArgs = std::move(bound);
  return plan;
}

/// A paged call's trailing flags: gate_domain (index), beta_is_logit and
/// qk_l2norm (i1), after one buffer argument.
std::vector<KernelArg> call(int64_t domain, bool logit, bool l2norm) {
  return {KernelArg::buffer("q", nullptr, DType::BF16, {1}),
          KernelArg::indexValue("gate_domain", domain),
          KernelArg::i1Value("beta_is_logit", logit),
          KernelArg::i1Value("qk_l2norm", l2norm)};
}

std::map<std::string, LaunchPlan> pagedPlans() {
  return {{"gdn_paged", LaunchPlan::single("gdn_paged")},
          {"gdn_paged_s0", boundPlan({1, 0, 2, 1, 3, 1})},
          {"gdn_paged_s1", boundPlan({1, 1, 2, 0, 3, 1})},
          {"gdn_pool", LaunchPlan::single("gdn_pool")}};
}
} // namespace

TEST(PickEntry, MatchingFlagsRunTheBoundCopy) {
  auto plans = pagedPlans();
  EXPECT_EQ(pickEntry(plans, "gdn_paged", call(0, true, true)), "gdn_paged_s0");
  EXPECT_EQ(pickEntry(plans, "gdn_paged", call(1, false, true)), "gdn_paged_s1");
}

TEST(PickEntry, OtherFlagsRunTheEntry) {
  auto plans = pagedPlans();
  // One flag differs from each copy: the generic entry, with its branches.
  EXPECT_EQ(pickEntry(plans, "gdn_paged", call(0, true, false)), "gdn_paged");
  EXPECT_EQ(pickEntry(plans, "gdn_paged", call(2, false, true)), "gdn_paged");
  EXPECT_EQ(pickEntry(plans, "gdn_paged", call(1, true, true)), "gdn_paged");
  // Copies of one entry are never picked for another.
  EXPECT_EQ(pickEntry(plans, "gdn_pool", call(0, true, true)), "gdn_pool");
}

TEST(PickEntry, BoundArgumentsMustExistAndBeScalars) {
  std::map<std::string, LaunchPlan> plans = {
      {"past_end", boundPlan({9, 0})}, {"on_buffer", boundPlan({0, 0})}};
  EXPECT_EQ(pickEntry(plans, "gdn_paged", call(0, false, false)), "gdn_paged");
}

TEST(PickEntry, DescribesTheBoundFlagsByName) {
  EXPECT_EQ(describeBoundArgs(boundPlan({1, 0, 3, 1}), call(0, true, true)),
            "gate_domain=0 qk_l2norm=1");
  EXPECT_EQ(describeBoundArgs(LaunchPlan::single("x"), call(0, true, true)), "");
}

TEST(ArtifactManifest, KeepsBoundArguments) {
  Artifact a;
  a.ptx = "// ptx";
  a.kernels["gdn_paged_s1"] = KernelInfo{};
  LaunchPlan plan = boundPlan({1, 1, 2, 0, 3, 1});
  plan.steps = {{"gdn_paged_s1", SlotAxis::One}};
  a.plans["gdn_paged_s1"] = plan;
  const std::string dir =
      (std::filesystem::temp_directory_path() /
       ("gdn-launchplan-test-" + std::to_string(::getpid())))
          .string();
  std::filesystem::create_directories(dir);
  ASSERT_TRUE(writeArtifact(dir, a).ok());
  Artifact back;
  Status s = readArtifact(dir, back);
  std::filesystem::remove_all(dir);
  ASSERT_TRUE(s.ok()) << s.message;
  ASSERT_EQ(back.plans.count("gdn_paged_s1"), 1u);
  EXPECT_EQ(back.plans["gdn_paged_s1"].specializedFrom, "gdn_paged");
  EXPECT_EQ(back.plans["gdn_paged_s1"].boundArgs,
            (std::vector<int64_t>{1, 1, 2, 0, 3, 1}));
  EXPECT_EQ(back.entryFor("gdn_paged", call(1, false, true)), "gdn_paged_s1");
}
