//===- ConditionTest.cpp - The one condition evaluator and its width rule -===//
#include "Helpers.h"

#include "incant/Litmus/Condition.h"

using namespace incant;
using namespace incant::litmus;
using namespace incant::litmus::test;

namespace {

std::vector<Value> ints(std::initializer_list<int64_t> Vs) {
  std::vector<Value> Out;
  for (int64_t V : Vs)
    Out.push_back(Value{-1, V});
  return Out;
}

/// A GPU_PTX test whose condition is \p Cond over registers of several
/// widths: 0:a (.u32), 0:b (.s16), 0:p (.pred), 1:w (.u64), 1:q (.b64 = x).
Program typed(const std::string &Cond) {
  Lowered L = lowerText(R"(GPU_PTX widths
{ x=0; y=0x100000000;
  0:.reg .u32 a; 0:.reg .s16 b; 0:.reg .pred p;
  1:.reg .u64 w; 1:.reg .b64 q = x; }
 T0                  | T1                  ;
 ld.u32 a, [x]       | ld.u64 w, [y]       ;
ScopeTree (device (cta T0 T1))
exists )" + Cond + "\n");
  EXPECT_TRUE(L.P);
  return L.P ? std::move(*L.P) : Program{};
}

} // namespace

TEST(LitmusCondition, RegisterWidthRule) {
  // 0:a is .u32: -1 and 0xffffffff are the same 32-bit value.
  Program P = typed("(0:a=-1)");
  ASSERT_EQ(P.Observe.size(), 1u);
  EXPECT_TRUE(holds(P, P.Condition, ints({0xffffffff})));
  EXPECT_TRUE(holds(P, P.Condition, ints({-1})));
  EXPECT_FALSE(holds(P, P.Condition, ints({0x7fffffff})));
  // A constant is read at the register's width.
  P = typed("(0:a=0x100000001)");
  EXPECT_TRUE(holds(P, P.Condition, ints({1})));
  // .s16 against .u32: compared on the narrower width, 16 bits.
  P = typed("(0:b = 0:a)");
  ASSERT_EQ(P.Observe.size(), 2u);
  EXPECT_TRUE(holds(P, P.Condition, ints({-1, 0xffff})));
  EXPECT_TRUE(holds(P, P.Condition, ints({-1, 0x1ffff})));
  EXPECT_FALSE(holds(P, P.Condition, ints({-1, 0xfffe})));
  // A predicate is one bit wide.
  P = typed("(0:p=1)");
  EXPECT_TRUE(holds(P, P.Condition, ints({1})));
  EXPECT_FALSE(holds(P, P.Condition, ints({0})));
  // A .u64 register compares all 64 bits.
  P = typed("(1:w=-1)");
  EXPECT_TRUE(holds(P, P.Condition, ints({-1})));
  EXPECT_FALSE(holds(P, P.Condition, ints({0xffffffff})));
}

TEST(LitmusCondition, LocationWidth) {
  // x has only 32-bit accesses; y's initial value needs 64 bits.
  Program P = typed("(x=-1 /\\ y=0)");
  ASSERT_EQ(P.Locs.size(), 2u);
  EXPECT_EQ(P.Locs[0].Bits, 32);
  EXPECT_EQ(P.Locs[1].Bits, 64);
  EXPECT_TRUE(holds(P, P.Condition, ints({0xffffffff, 0})));
  EXPECT_FALSE(holds(P, P.Condition, ints({0xffffffff, 0x100000000})));
  // A 64-bit access makes its location 64 bits wide.
  Lowered L = lowerText("PTX t\n{ x=0; }\n P0 ;\n st.u64 x, 1 ;\n"
                        "exists (x=-1)\n");
  ASSERT_TRUE(L.P);
  EXPECT_EQ(L.P->Locs[0].Bits, 64);
  EXPECT_FALSE(holds(*L.P, L.P->Condition, ints({0xffffffff})));
  EXPECT_TRUE(holds(*L.P, L.P->Condition, ints({-1})));
}

TEST(LitmusCondition, AddressesAndConstants) {
  // 1:q holds an address: it equals x, and only x.
  Program P = typed("(1:q=x)");
  std::vector<Value> Obs = {Value{0, 0}};
  EXPECT_TRUE(holds(P, P.Condition, Obs));
  Obs = {Value{1, 0}};
  EXPECT_FALSE(holds(P, P.Condition, Obs));
  Obs = {Value{0, 4}};
  EXPECT_FALSE(holds(P, P.Condition, Obs));
  Obs = {Value{-1, 0}};
  EXPECT_FALSE(holds(P, P.Condition, Obs));
  // No register at all: two constants compare exactly.
  P = typed("(0==0)");
  EXPECT_TRUE(P.Observe.empty());
  EXPECT_TRUE(holds(P, P.Condition, {}));
  P = typed("(0==1 \\/ -1 == 0xffffffff)");
  EXPECT_FALSE(holds(P, P.Condition, {}));
}

TEST(LitmusCondition, Connectives) {
  Program P = typed("(~(0:a=1 \\/ 1:w=1) /\\ 0:a != 2)");
  ASSERT_EQ(P.Observe.size(), 2u);
  EXPECT_TRUE(holds(P, P.Condition, ints({0, 0})));
  EXPECT_FALSE(holds(P, P.Condition, ints({1, 0})));
  EXPECT_FALSE(holds(P, P.Condition, ints({0, 1})));
  EXPECT_FALSE(holds(P, P.Condition, ints({2, 0})));
}

TEST(LitmusCondition, Quantifiers) {
  EXPECT_TRUE(quantifierHolds(Quantifier::Exists, 1, 5));
  EXPECT_FALSE(quantifierHolds(Quantifier::Exists, 0, 5));
  EXPECT_TRUE(quantifierHolds(Quantifier::NotExists, 0, 5));
  EXPECT_FALSE(quantifierHolds(Quantifier::NotExists, 1, 0));
  EXPECT_TRUE(quantifierHolds(Quantifier::Forall, 3, 0));
  EXPECT_FALSE(quantifierHolds(Quantifier::Forall, 3, 1));
  // No execution at all: exists fails, ~exists and forall hold.
  EXPECT_FALSE(quantifierHolds(Quantifier::Exists, 0, 0));
  EXPECT_TRUE(quantifierHolds(Quantifier::Forall, 0, 0));
}
