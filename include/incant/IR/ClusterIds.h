//===- ClusterIds.h - Cluster special registers as expressions --*- C++ -*-===//
//
// A kernel compiled with `.reqnctapercluster X, Y, Z` (CUDA's
// __cluster_dims__) runs in clusters of X*Y*Z CTAs that tile the grid, so
// its cluster registers are functions of %ctaid and %nctaid:
// %cluster_ctaid.d = %ctaid.d mod c_d, %clusterid.d = %ctaid.d / c_d,
// %cluster_ctarank = its linear rank, %cluster_nctaid.d = c_d,
// %cluster_nctarank = X*Y*Z, %nclusterid.d = %nctaid.d / c_d. Without the
// directive the cluster shape is chosen at launch and they stay opaque.
//
//===----------------------------------------------------------------------===//
#ifndef INCANT_IR_CLUSTERIDS_H
#define INCANT_IR_CLUSTERIDS_H

#include "incant/IR/SymExpr.h"
#include "incant/PTX/Module.h"

#include <array>
#include <optional>
#include <string>

namespace incant::ir {

/// The cluster shape `.reqnctapercluster` fixes, if it does.
std::optional<std::array<int64_t, 3>> clusterShape(const ptx::Function &F);

/// \p Name (a special register) as an expression over %ctaid and %nctaid,
/// or NoExpr when it is not a cluster register or the shape is not fixed.
ExprId clusterRegister(ExprPool &P, const ptx::Function &F,
                       const std::string &Name);

} // namespace incant::ir

#endif // INCANT_IR_CLUSTERIDS_H
