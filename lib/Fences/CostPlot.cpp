//===- CostPlot.cpp - Figure 5 of the PLDI'16 paper as SVG ----------------===//
//
// Two scatter plots side by side, log scales on both axes: energy (J, left)
// and runtime (ms, right) of each application with fences (y) against the
// same without (x). A cross is the reduced set (emp), a dot every fence
// (cons); the diagonal is "no cost", and the distance above it the cost.
// Each point carries the application's name as a tooltip (<title>).
//
//===----------------------------------------------------------------------===//
#include "incant/Fences/CostResult.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace incant::fences {

namespace {

std::string escape(const std::string &S) {
  std::string O;
  for (char C : S) {
    if (C == '<')
      O += "&lt;";
    else if (C == '>')
      O += "&gt;";
    else if (C == '&')
      O += "&amp;";
    else if (C == '"')
      O += "&quot;";
    else
      O += C;
  }
  return O;
}

struct Point {
  double X, Y;
  bool Emp;
  std::string App;
};

const VariantCost *variant(const AppCost &A, const char *Name) {
  for (const VariantCost &V : A.Variants)
    if (V.Name == Name && V.Counted)
      return &V;
  return nullptr;
}

/// One panel at (Left, Top), Size pixels square.
std::string panel(const std::vector<Point> &Ps, const std::string &Title,
                  const std::string &Unit, double Left, double Top,
                  double Size) {
  std::string S;
  S += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\" "
                   "font-size=\"14\">{}</text>\n",
                   Left + Size / 2, Top - 10, escape(Title));
  if (Ps.empty()) {
    S += fmt::format("<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" "
                     "height=\"{:.1f}\" fill=\"none\" stroke=\"black\"/>\n"
                     "<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\" "
                     "font-size=\"12\">no data</text>\n",
                     Left, Top, Size, Size, Left + Size / 2, Top + Size / 2);
    return S;
  }
  double Lo = INFINITY, Hi = 0;
  for (const Point &P : Ps) {
    Lo = std::min({Lo, P.X, P.Y});
    Hi = std::max({Hi, P.X, P.Y});
  }
  // Whole decades around the data.
  double D0 = std::floor(std::log10(Lo)), D1 = std::ceil(std::log10(Hi));
  if (D1 <= D0)
    D1 = D0 + 1;
  auto Px = [&](double V) {
    return Left + (std::log10(V) - D0) / (D1 - D0) * Size;
  };
  auto Py = [&](double V) {
    return Top + Size - (std::log10(V) - D0) / (D1 - D0) * Size;
  };
  S += fmt::format("<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" "
                   "height=\"{:.1f}\" fill=\"none\" stroke=\"black\"/>\n",
                   Left, Top, Size, Size);
  for (double D = D0; D <= D1; ++D) {
    double V = std::pow(10.0, D);
    std::string L = fmt::format("{:g}", V);
    S += fmt::format("<line x1=\"{0:.1f}\" y1=\"{1:.1f}\" x2=\"{0:.1f}\" "
                     "y2=\"{2:.1f}\" stroke=\"#ddd\"/>\n"
                     "<line x1=\"{3:.1f}\" y1=\"{4:.1f}\" x2=\"{5:.1f}\" "
                     "y2=\"{4:.1f}\" stroke=\"#ddd\"/>\n",
                     Px(V), Top, Top + Size, Left, Py(V), Left + Size);
    S += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\" "
                     "font-size=\"10\">{}</text>\n",
                     Px(V), Top + Size + 14, L);
    S += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"end\" "
                     "font-size=\"10\">{}</text>\n",
                     Left - 4, Py(V) + 3, L);
  }
  S += fmt::format("<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" "
                   "y2=\"{:.1f}\" stroke=\"gray\" stroke-dasharray=\"4 3\"/>\n",
                   Left, Top + Size, Left + Size, Top);
  S += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\" "
                   "font-size=\"12\">no fences ({})</text>\n",
                   Left + Size / 2, Top + Size + 32, Unit);
  S += fmt::format("<text transform=\"translate({:.1f},{:.1f}) rotate(-90)\" "
                   "text-anchor=\"middle\" font-size=\"12\">with fences "
                   "({})</text>\n",
                   Left - 40, Top + Size / 2, Unit);
  for (const Point &P : Ps) {
    double X = Px(P.X), Y = Py(P.Y);
    std::string Tip = fmt::format("<title>{} ({}): {:g} / {:g} {}</title>",
                                  escape(P.App), P.Emp ? "emp" : "cons", P.X,
                                  P.Y, Unit);
    if (P.Emp)
      S += fmt::format("<g stroke=\"#c0392b\" stroke-width=\"1.5\">{}<line "
                       "x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" "
                       "y2=\"{:.1f}\"/><line x1=\"{:.1f}\" y1=\"{:.1f}\" "
                       "x2=\"{:.1f}\" y2=\"{:.1f}\"/></g>\n",
                       Tip, X - 4, Y - 4, X + 4, Y + 4, X - 4, Y + 4, X + 4,
                       Y - 4);
    else
      S += fmt::format("<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"3.5\" "
                       "fill=\"#2c3e50\">{}</circle>\n",
                       X, Y, Tip);
  }
  return S;
}

} // namespace

std::string costPlotSvg(const std::vector<AppCost> &Apps) {
  std::vector<Point> Energy, Time;
  for (const AppCost &A : Apps) {
    const VariantCost *No = variant(A, "no");
    if (!No)
      continue;
    for (const char *Name : {"cons", "emp"}) {
      const VariantCost *V = variant(A, Name);
      if (!V)
        continue;
      bool Emp = std::string(Name) == "emp";
      if (No->MedianMs > 0 && V->MedianMs > 0)
        Time.push_back({No->MedianMs, V->MedianMs, Emp, A.App});
      if (No->EnergyOk && No->EnergyJ > 0 && V->EnergyJ > 0)
        Energy.push_back({No->EnergyJ, V->EnergyJ, Emp, A.App});
    }
  }
  const double Size = 320, Top = 50, Gap = 110;
  std::string S = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{:.0f}\" "
      "height=\"{:.0f}\" font-family=\"sans-serif\">\n"
      "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n",
      Gap + 2 * Size + Gap, Top + Size + 80);
  S += panel(Energy, "Energy", "J", Gap - 20, Top, Size);
  S += panel(Time, "Runtime", "ms", Gap + Size + Gap / 2, Top, Size);
  double Ly = Top + Size + 60;
  S += fmt::format(
      "<g font-size=\"12\"><g stroke=\"#c0392b\" stroke-width=\"1.5\"><line "
      "x1=\"{0:.1f}\" y1=\"{1:.1f}\" x2=\"{2:.1f}\" y2=\"{3:.1f}\"/><line "
      "x1=\"{0:.1f}\" y1=\"{3:.1f}\" x2=\"{2:.1f}\" y2=\"{1:.1f}\"/></g>"
      "<text x=\"{4:.1f}\" y=\"{5:.1f}\">emp: the reduced fences</text>"
      "<circle cx=\"{6:.1f}\" cy=\"{7:.1f}\" r=\"3.5\" fill=\"#2c3e50\"/>"
      "<text x=\"{8:.1f}\" y=\"{5:.1f}\">cons: a fence after every "
      "access</text></g>\n",
      Gap, Ly - 4, Gap + 8, Ly + 4, Gap + 14, Ly + 4, Gap + 224, Ly,
      Gap + 234);
  S += "</svg>\n";
  return S;
}

} // namespace incant::fences
