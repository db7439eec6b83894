//===- GenImpl.h - Private pieces shared by the Gen sources -----*- C++ -*-===//
#ifndef INCANT_LIB_GEN_GENIMPL_H
#define INCANT_LIB_GEN_GENIMPL_H

#include "incant/Gen/Generate.h"

#include <string>
#include <vector>

namespace incant::gen {

/// A shape with its cycle parsed (po edges plain, external edges generic).
struct ShapeInfo {
  std::string Name;
  std::vector<Edge> Edges;
};
const std::vector<ShapeInfo> &shapeInfos();

} // namespace incant::gen

#endif // INCANT_LIB_GEN_GENIMPL_H
