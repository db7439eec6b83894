//===- Plot.cpp - SVG patch map, sequence ranking, spread curve, random ------===//
#include "incant/Tune/Plot.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>

namespace incant::tune {

std::string xmlEscape(const std::string &S) {
  std::string O;
  for (char C : S) {
    switch (C) {
    case '<': O += "&lt;"; break;
    case '>': O += "&gt;"; break;
    case '&': O += "&amp;"; break;
    case '"': O += "&quot;"; break;
    default: O += C;
    }
  }
  return O;
}

namespace {

std::string header(double W, double H, const std::string &Title) {
  W = std::max(W, 20 + 7.5 * double(Title.size())); // room for the title
  return fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0:.0f}\" "
      "height=\"{1:.0f}\" viewBox=\"0 0 {0:.0f} {1:.0f}\" "
      "font-family=\"sans-serif\" font-size=\"11\">\n"
      "<title>{2}</title>\n<rect width=\"100%\" height=\"100%\" "
      "fill=\"white\"/>\n<text x=\"10\" y=\"18\" font-size=\"14\">{2}</text>\n",
      W, H, xmlEscape(Title));
}

std::string text(double X, double Y, const std::string &S,
                 const char *Anchor = "start") {
  return fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"{}\">{}"
                     "</text>\n",
                     X, Y, Anchor, xmlEscape(S));
}

std::string name(const std::vector<std::string> &Tests, size_t T) {
  return T < Tests.size() ? Tests[T] : "test " + std::to_string(T);
}

const char *Colours[] = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd",
                         "#ff7f0e", "#8c564b"};


/// Test \p T's curve through \p Pts ("x,y x,y ..."), with its name and
/// \p Max in the legend right of a plot at \p Left + \p PW.
std::string curve(const std::string &Pts, size_t T, const std::string &Label,
                  const std::string &Max, double Left, double PW, double Top) {
  return fmt::format("<polyline points=\"{}\" fill=\"none\" stroke=\"{}\" "
                     "stroke-width=\"2\"/>\n"
                     "<text x=\"{:.1f}\" y=\"{:.1f}\" fill=\"{}\">{} (max "
                     "{})</text>\n",
                     Pts, Colours[T % 6], Left + PW + 10,
                     Top + 14 + 16 * double(T), Colours[T % 6],
                     xmlEscape(Label), Max);
}

/// A vertical line at \p X from \p Top down \p PH, dashed or solid.
std::string marker(double X, double Top, double PH, bool Dashed) {
  return fmt::format("<line x1=\"{0:.1f}\" y1=\"{1}\" x2=\"{0:.1f}\" "
                     "y2=\"{2}\" stroke=\"#000\"{3}/>\n",
                     X, Top, Top + PH,
                     Dashed ? " stroke-dasharray=\"4 3\"" : "");
}

/// The y axis of a plot whose curves are each scaled to their own largest
/// value: ticks at 0, 25, 50, 75 and 100 % of it, gridlines across the
/// plot's width \p PW, and
/// \p Label turned along the axis.
std::string relativeYAxis(double Left, double Top, double PW, double PH,
                          const std::string &Label) {
  std::string S;
  for (int Pct = 0; Pct <= 100; Pct += 25) {
    double Y = Top + PH - PH * Pct / 100.0;
    S += fmt::format("<line x1=\"{0:.1f}\" y1=\"{1:.1f}\" x2=\"{2:.1f}\" "
                     "y2=\"{1:.1f}\" stroke=\"#888\"/>\n",
                     Left - 4, Y, Left);
    if (Pct > 0 && Pct < 100)
      S += fmt::format("<line x1=\"{0:.1f}\" y1=\"{1:.1f}\" x2=\"{2:.1f}\" "
                       "y2=\"{1:.1f}\" stroke=\"#eee\"/>\n",
                       Left, Y, Left + PW);
    S += text(Left - 6, Y + 4, fmt::format("{} %", Pct), "end");
  }
  S += fmt::format("<text x=\"14\" y=\"{0:.1f}\" text-anchor=\"middle\" "
                   "transform=\"rotate(-90 14 {0:.1f})\">{1}</text>\n",
                   Top + PH / 2, xmlEscape(Label));
  return S;
}

} // namespace

std::string patchMapSvg(const PatchData &D, const std::vector<std::string> &Tests,
                        uint64_t Epsilon) {
  // One panel per test: a row of bars per distance, one bar per offset,
  // height proportional to the count (the panel's largest count = full).
  const double Cell = std::max(2.0, std::min(12.0, 600.0 / std::max<size_t>(D.Offsets.size(), 1)));
  const double RowH = 28, Left = 70, PanelGap = 40;
  double PanelW = Cell * double(D.Offsets.size());
  double PanelH = RowH * double(D.Distances.size()) + 30;
  double W = Left + PanelW + 20;
  double H = 40 + double(D.Weak.size()) * (PanelH + PanelGap) + 20;
  std::string S = header(W, H, fmt::format("Patch map: weak outcomes per "
                                           "stress offset l (x) and distance "
                                           "d (rows); epsilon = {}",
                                           Epsilon));
  for (size_t T = 0; T < D.Weak.size(); ++T) {
    double Y0 = 40 + double(T) * (PanelH + PanelGap);
    uint64_t Max = 1;
    for (const auto &Row : D.Weak[T])
      for (const auto &V : Row)
        if (V)
          Max = std::max(Max, *V);
    S += text(10, Y0 + 12, fmt::format("{} (max {})", name(Tests, T), Max));
    for (size_t DI = 0; DI < D.Distances.size(); ++DI) {
      double Base = Y0 + 20 + RowH * double(DI + 1);
      S += text(Left - 6, Base - 4, fmt::format("d={}", D.Distances[DI]), "end");
      S += fmt::format("<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" "
                       "y2=\"{:.1f}\" stroke=\"#ccc\"/>\n",
                       Left, Base, Left + PanelW, Base);
      for (size_t LI = 0; LI < D.Offsets.size(); ++LI) {
        const auto &V = D.Weak[T][DI][LI];
        double X = Left + Cell * double(LI);
        if (!V) {
          S += fmt::format("<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" "
                           "height=\"3\" fill=\"#eee\"/>\n",
                           X, Base - 3, Cell);
          continue;
        }
        if (*V == 0)
          continue;
        double Hb = (RowH - 4) * double(*V) / double(Max);
        S += fmt::format(
            "<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" "
            "fill=\"{}\"><title>d={} l={}: {}</title></rect>\n",
            X, Base - Hb, std::max(Cell - 0.5, 1.0), Hb,
            *V > Epsilon ? Colours[T % 6] : "#bbb", D.Distances[DI],
            D.Offsets[LI], *V);
      }
    }
    double Axis = Y0 + 20 + RowH * double(D.Distances.size()) + 14;
    if (!D.Offsets.empty()) {
      S += text(Left, Axis, fmt::format("l={}", D.Offsets.front()));
      S += text(Left + PanelW, Axis, fmt::format("l={}", D.Offsets.back()),
                "end");
      S += text(Left + PanelW / 2, Axis,
                "stress offset l (words past the instance's first location)", "middle");
    }
  }
  return S + "</svg>\n";
}

std::string sequenceRankingSvg(const SequenceData &D,
                               const std::vector<std::string> &Tests) {
  size_t NT = D.Score.empty() ? 0 : D.Score[0].size();
  size_t N = D.Seqs.size();
  const double RowH = 14, ColW = 250, Top = 60;
  double W = 20 + ColW * double(std::max<size_t>(NT, 1));
  double H = Top + RowH * double(N + 2) + 30;
  std::string S = header(W, H, "Access sequences ranked per test (score: weak "
                               "outcomes over all points); chosen: " +
                                   (N ? paperNotation(D.Seqs[D.Best]) : "-"));
  for (size_t T = 0; T < NT; ++T) {
    double X = 10 + ColW * double(T);
    std::vector<size_t> Order(N);
    std::iota(Order.begin(), Order.end(), 0);
    std::stable_sort(Order.begin(), Order.end(), [&](size_t A, size_t B) {
      return D.Score[A][T] > D.Score[B][T];
    });
    uint64_t Max = N ? std::max<uint64_t>(D.Score[Order[0]][T], 1) : 1;
    S += text(X, Top - 20, name(Tests, T));
    S += text(X, Top - 6, "rank  sequence  score");
    for (size_t R = 0; R < N; ++R) {
      size_t Q = Order[R];
      double Y = Top + RowH * double(R + 1);
      bool Chosen = Q == D.Best;
      bool Pareto = std::find(D.Pareto.begin(), D.Pareto.end(), Q) != D.Pareto.end();
      double Bw = 80.0 * double(D.Score[Q][T]) / double(Max);
      S += fmt::format("<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" "
                       "height=\"{:.1f}\" fill=\"{}\"/>\n",
                       X + 160, Y - RowH + 4, Bw, RowH - 4,
                       Chosen ? "#d62728" : Pareto ? "#ff9896" : "#9ecae1");
      S += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\"{}>{:>3}  {}  {}</text>\n",
                       X, Y, Chosen ? " font-weight=\"bold\"" : "", R + 1,
                       xmlEscape(paperNotation(D.Seqs[Q])), D.Score[Q][T]);
    }
    if (!D.BaselineScore.empty())
      S += text(X, Top + RowH * double(N + 2),
                fmt::format("no stress: {}", D.BaselineScore[T]));
  }
  return S + "</svg>\n";
}

std::string spreadCurveSvg(const SpreadData &D,
                           const std::vector<std::string> &Tests) {
  size_t NT = D.Score.empty() ? 0 : D.Score[0].size();
  const double Left = 60, Top = 40, PW = 500, PH = 260;
  std::string S = header(Left + PW + 150, Top + PH + 60,
                         fmt::format("Spread: score (weak outcomes over all "
                                     "distances, scaled to each test's "
                                     "best) per spread m; chosen m = {}",
                                     D.Best));
  S += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" "
                   "fill=\"none\" stroke=\"#888\"/>\n",
                   Left, Top, PW, PH);
  size_t M = D.Spreads.size();
  auto Xof = [&](size_t I) {
    return Left + (M > 1 ? PW * double(I) / double(M - 1) : PW / 2);
  };
  for (size_t I = 0; I < M; ++I)
    S += text(Xof(I), Top + PH + 14, std::to_string(D.Spreads[I]), "middle");
  S += text(Left + PW / 2, Top + PH + 32, "spread m", "middle");
  S += relativeYAxis(Left, Top, PW, PH, "score, % of the test's best (legend)");
  for (size_t T = 0; T < NT; ++T) {
    uint64_t Max = 1;
    for (const auto &Row : D.Score)
      Max = std::max(Max, Row[T]);
    std::string Pts;
    for (size_t I = 0; I < M; ++I)
      Pts += fmt::format("{:.1f},{:.1f} ", Xof(I),
                         Top + PH - PH * double(D.Score[I][T]) / double(Max));
    S += curve(Pts, T, name(Tests, T), std::to_string(Max), Left, PW, Top);
  }
  for (size_t I = 0; I < M; ++I)
    if (D.Spreads[I] == D.Best)
      S += marker(Xof(I), Top, PH, /*Dashed=*/true);
  return S + "</svg>\n";
}

std::string randomSearchSvg(const RandomData &D,
                            const std::vector<std::string> &Tests) {
  size_t NT = D.Trials.empty() ? 0 : D.Trials[0].Scores.size();
  const double Left = 60, Top = 40, PW = 500, PH = 260;
  std::string S = header(
      Left + PW + 190, Top + PH + 60,
      fmt::format("Random search: weak outcomes per second of each candidate "
                  "(#0 the start), scaled to each test's best; winner #{}",
                  D.Best));
  S += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" "
                   "fill=\"none\" stroke=\"#888\"/>\n",
                   Left, Top, PW, PH);
  size_t M = D.Trials.size();
  auto Xof = [&](size_t I) {
    return Left + (M > 1 ? PW * double(I) / double(M - 1) : PW / 2);
  };
  size_t Step = std::max<size_t>(1, (M + 9) / 10);
  for (size_t I = 0; I < M; I += Step)
    S += text(Xof(I), Top + PH + 14, "#" + std::to_string(I), "middle");
  S += text(Left + PW / 2, Top + PH + 32, "candidate (#0: the start)",
            "middle");
  S += relativeYAxis(Left, Top, PW, PH,
                     "weak outcomes per second, % of the test's best");
  for (size_t T = 0; T < NT; ++T) {
    double Max = 0;
    for (const RandomTrial &R : D.Trials)
      if (T < R.Scores.size())
        Max = std::max(Max, R.Scores[T].perSecond());
    std::string Pts;
    for (size_t I = 0; I < M; ++I) {
      double V = T < D.Trials[I].Scores.size()
                     ? D.Trials[I].Scores[T].perSecond()
                     : 0;
      Pts += fmt::format("{:.1f},{:.1f} ", Xof(I),
                         Top + PH - (Max > 0 ? PH * V / Max : 0));
    }
    S += curve(Pts, T, name(Tests, T), fmt::format("{:.3g} weak/s", Max),
               Left, PW, Top);
  }
  // The incumbents (candidates that became the best so far), and the winner.
  for (size_t I = 0; I < M; ++I)
    if (D.Trials[I].Winner || I == D.Best)
      S += marker(Xof(I), Top, PH, /*Dashed=*/I != D.Best);
  return S + "</svg>\n";
}

} // namespace incant::tune
