//===- ReportHtml.cpp - `incant report --html`: one self-contained page ---===//
//
// Inline CSS and SVG only: the page opens offline and can be mailed as one
// file. Every text from a database (test names, states, chip names) is
// escaped.
//
//===----------------------------------------------------------------------===//
#include "incant/Campaign/Report.h"
#include "incant/Harness/Stats.h"

#include <cmath>
#include <fmt/format.h>
#include <map>
#include <ostream>
#include <set>

namespace incant::campaign {

namespace {

std::string esc(const std::string &S) {
  std::string O;
  O.reserve(S.size());
  for (char C : S)
    switch (C) {
    case '&':
      O += "&amp;";
      break;
    case '<':
      O += "&lt;";
      break;
    case '>':
      O += "&gt;";
      break;
    case '"':
      O += "&quot;";
      break;
    case '\'':
      O += "&#39;";
      break;
    default:
      O += C;
    }
  return O;
}

const char *const Css = R"css(
body{font-family:system-ui,sans-serif;margin:2em;color:#222;max-width:80em}
h1{font-size:1.5em}h2{font-size:1.2em;margin-top:2em;border-bottom:1px solid #ccc}
table{border-collapse:collapse;font-size:.9em}
th,td{border:1px solid #ddd;padding:.2em .5em;text-align:left}
th{background:#f4f4f4}td.n{text-align:right;font-variant-numeric:tabular-nums}
td.ok{background:#e8f5e9}td.no{background:#eceff1}td.bad{background:#ffcdd2;font-weight:bold}
td.err{color:#b71c1c}code,pre{font-family:ui-monospace,monospace;font-size:.9em}
code{overflow-wrap:anywhere}
pre{background:#fafafa;border:1px solid #eee;padding:.5em;white-space:pre-wrap}
.note{color:#555;font-size:.9em}
)css";

std::string rate(double R) { return fmt::format("{:.3g}", R); }

/// Horizontal bars of the pooled weak rate per family and scope on a log
/// axis from 1e-7 to 1; a group that never showed its weak outcome gets no
/// bar and its 95 % upper bound as text.
void chart(const ReportData &D, std::ostream &OS) {
  const int Label = 230, Width = 460, RowH = 20, Top = 24;
  const int H = Top + RowH * static_cast<int>(D.Groups.size()) + 8;
  const int Total = Label + Width + 230;
  OS << fmt::format("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" "
                    "height=\"{}\" font-size=\"12\" font-family=\"sans-serif\" "
                    "role=\"img\" aria-label=\"weak rate per family and "
                    "scope\">\n",
                    Total, H);
  auto X = [&](double R) {
    double L = std::log10(std::max(R, 1e-7));
    return Label + (L + 7) / 7 * Width;
  };
  for (int E = -7; E <= 0; ++E) {
    double Px = X(std::pow(10.0, E));
    OS << fmt::format("<line x1=\"{0:.1f}\" y1=\"{1}\" x2=\"{0:.1f}\" "
                      "y2=\"{2}\" stroke=\"#ddd\"/>"
                      "<text x=\"{0:.1f}\" y=\"{3}\" text-anchor=\"middle\" "
                      "fill=\"#555\">1e{4}</text>\n",
                      Px, Top - 4, H - 8, Top - 10, E);
  }
  int Y = Top;
  for (const ReportData::Group &G : D.Groups) {
    harness::Proportion P = harness::wilson(G.Positive, G.Instances);
    OS << fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"end\">{} "
                      "{}</text>",
                      Label - 6, Y + 14, esc(G.Family), esc(G.Scope));
    std::string Text;
    if (G.Positive) {
      double W = X(P.Rate) - Label;
      OS << fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{:.1f}\" "
                        "height=\"{}\" fill=\"#1976d2\"><title>{} {}: {} of "
                        "{}</title></rect>",
                        Label, Y + 3, std::max(W, 1.0), RowH - 6, esc(G.Family),
                        esc(G.Scope), G.Positive, G.Instances);
      Text = fmt::format("{} ({} of {} tests)", rate(P.Rate), G.WeakTests,
                         G.Tests);
    } else {
      Text = fmt::format("0 (rate < {}; {} tests)", rate(P.High), G.Tests);
    }
    double Tx = G.Positive ? X(P.Rate) + 6 : Label + 6;
    OS << fmt::format("<text x=\"{:.1f}\" y=\"{}\">{}</text>\n", Tx, Y + 14,
                      esc(Text));
    Y += RowH;
  }
  OS << "</svg>\n";
}

std::string where(const ReportData::Row &R) {
  return fmt::format("C{} P{}", R.Chip + 1, R.Params + 1);
}

void entries(const ReportData &D, const std::vector<ReportData::Entry> &L,
             bool Counts, std::ostream &OS) {
  std::map<std::string, std::vector<const ReportData::Entry *>> ByModel;
  for (const ReportData::Entry &E : L)
    ByModel[E.Model].push_back(&E);
  for (const std::string &M : D.Models) {
    auto It = ByModel.find(M);
    if (It == ByModel.end())
      continue;
    OS << fmt::format("<details{}><summary><b>{}</b>: {} state(s)</summary>\n",
                      Counts ? " open" : "", esc(M), It->second.size());
    OS << "<table><tr><th>test</th><th>chip, params</th><th>final state</th>"
          "<th>weak</th>"
       << (Counts ? "<th>seen</th><th>of instances</th>" : "") << "</tr>\n";
    for (const ReportData::Entry *E : It->second) {
      const ReportData::Row &R = D.Rows[E->Row];
      OS << fmt::format("<tr><td>{}</td><td>{}</td><td><code>{}</code></td>"
                        "<td>{}</td>",
                        esc(R.Test.Name), where(R), esc(E->State),
                        E->Satisfies ? "yes" : "");
      if (Counts)
        OS << fmt::format("<td class=\"n\">{}</td><td class=\"n\">{}</td>",
                          E->Count, R.Result.Instances);
      OS << "</tr>\n";
    }
    OS << "</table></details>\n";
  }
}

} // namespace

void printHtmlReport(const ReportData &D, std::ostream &OS) {
  size_t Errors = 0;
  std::set<std::string> Tests;
  for (const ReportData::Row &R : D.Rows) {
    Errors += R.Result.Error;
    Tests.insert(R.Test.Hash);
  }
  OS << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        "<title>incant campaign report</title>\n<style>"
     << Css << "</style></head><body>\n<h1>incant campaign report</h1>\n";
  OS << fmt::format("<p>{} result(s) of {} test(s), {} error(s), from:",
                    D.Rows.size(), Tests.size(), Errors);
  for (const std::string &Db : D.Dbs)
    OS << " <code>" << esc(Db) << "</code>";
  if (D.Duplicates)
    OS << fmt::format(" ({} duplicate(s) counted once)", D.Duplicates);
  OS << "</p>\n";
  if (D.LoopBoundCut)
    OS << "<p>" << esc(loopBoundNote(D)) << ".</p>\n";
  OS << "<table>\n";
  for (size_t I = 0; I < D.Chips.size(); ++I)
    OS << fmt::format("<tr><th>chip C{}</th><td>{}</td></tr>\n", I + 1,
                      esc(D.Chips[I]));
  // The parameters are one long JSON line: it may break after any comma,
  // so the page does not scroll sideways (code{overflow-wrap} for the rest).
  for (size_t I = 0; I < D.Params.size(); ++I) {
    std::string P = esc(D.Params[I]);
    for (size_t K = 0; (K = P.find(',', K)) != std::string::npos; K += 6)
      P.insert(K + 1, "<wbr>");
    OS << fmt::format("<tr><th>parameters P{}</th><td><code>{}</code></td>"
                      "</tr>\n",
                      I + 1, P);
  }
  std::string Versions;
  for (const std::string &V : D.Versions)
    Versions += (Versions.empty() ? "" : ", ") + esc(V);
  OS << "<tr><th>incant</th><td>" << Versions << "</td></tr>\n</table>\n";

  OS << "<h2>Models</h2>\n<table><tr><th>model</th><th>tests</th>"
        "<th>allows the weak outcome</th><th>forbids an observed state</th>"
        "<th>enumeration incomplete</th></tr>\n";
  for (const ReportData::ModelSummary &M : D.Summaries)
    OS << fmt::format("<tr><td>{}</td><td class=\"n\">{}</td><td "
                      "class=\"n\">{}</td><td class=\"n{}\">{}</td><td "
                      "class=\"n\">{}</td></tr>\n",
                      esc(M.Model), M.Tests, M.Allows, M.Unsound ? " bad" : "",
                      M.Unsound, M.Incomplete);
  OS << "</table>\n";

  OS << "<h2>Weak rate per family and scope</h2>\n<p class=\"note\">Pooled "
        "over the tests of each group: instances whose final state satisfies "
        "the condition, of all instances run (log scale).</p>\n";
  chart(D, OS);

  OS << fmt::format("<h2>Observed but forbidden by the model ({})</h2>\n"
                    "<p class=\"note\">Final states a chip showed that the "
                    "model forbids: the model is unsound for that chip (or "
                    "the run is wrong).</p>\n",
                    D.ObservedForbidden.size());
  if (D.ObservedForbidden.empty())
    OS << "<p>None: every model allows every observed state.</p>\n";
  entries(D, D.ObservedForbidden, true, OS);
  OS << fmt::format("<h2>Allowed by the model but never observed ({})</h2>\n"
                    "<p class=\"note\">Testing is weak there, or the chip is "
                    "stronger than the model.</p>\n",
                    D.AllowedUnseen.size());
  if (D.AllowedUnseen.empty())
    OS << "<p>None.</p>\n";
  entries(D, D.AllowedUnseen, false, OS);

  OS << "<h2>Tests</h2>\n<p class=\"note\">Weak: instances whose final state "
        "satisfies the condition; rate with its 95 % Wilson interval. Per "
        "model: Ok allows the weak outcome, No forbids it; red: the model "
        "forbids a state this run observed.</p>\n<table><tr><th>test</th>"
        "<th>family</th><th>scope</th><th>chip, params</th><th>instances</th>"
        "<th>weak</th><th>rate</th><th>95 % CI</th>";
  for (const std::string &M : D.Models)
    OS << "<th>" << esc(M) << "</th>";
  OS << "</tr>\n";
  for (size_t I = 0; I < D.Rows.size(); ++I) {
    const ReportData::Row &R = D.Rows[I];
    OS << fmt::format("<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td>",
                      esc(R.Test.Name), esc(R.Test.Family), esc(R.Test.Scope),
                      where(R));
    if (R.Result.Error) {
      OS << fmt::format("<td class=\"err\" colspan=\"{}\">error (see "
                        "Errors)</td></tr>\n",
                        4 + D.Models.size());
      continue;
    }
    harness::Proportion P =
        harness::wilson(R.Result.Positive, R.Result.Instances);
    OS << fmt::format("<td class=\"n\">{}</td><td class=\"n\">{}</td><td "
                      "class=\"n\">{}</td><td class=\"n\">{} to {}</td>",
                      R.Result.Instances, R.Result.Positive, rate(P.Rate),
                      rate(P.Low), rate(P.High));
    for (const std::string &M : D.Models) {
      const VerdictRecord *V = nullptr;
      for (const VerdictRecord &X : R.Verdicts)
        if (X.Model == M)
          V = &X;
      if (!V) {
        OS << "<td>-</td>";
        continue;
      }
      bool Bad = D.Unsound.count({I, M}) != 0;
      OS << fmt::format("<td class=\"{}\">{}{}</td>",
                        Bad     ? "bad"
                        : V->Ok ? "ok"
                                : "no",
                        V->Ok ? "Ok" : "No", V->Incomplete ? "?" : "");
    }
    OS << "</tr>\n";
  }
  OS << "</table>\n";
  if (!D.OptCheck.empty()) {
    OS << "<h2>Optcheck</h2>\n<p>Whether the compiled code keeps the test's "
          "memory accesses:";
    for (const auto &[Status, N] : D.OptCheck)
      OS << fmt::format(" {} {};", N, esc(Status));
    OS << "</p>\n";
    if (!D.OptCheckFailed.empty()) {
      OS << "<table><tr><th>test</th><th>optcheck</th></tr>\n";
      for (size_t I : D.OptCheckFailed)
        OS << fmt::format("<tr><td>{}</td><td class=\"err\">{}</td></tr>\n",
                          esc(D.Rows[I].Test.Name),
                          esc(D.Rows[I].Result.OptCheck));
      OS << "</table>\n";
    }
  }
  if (Errors) {
    OS << "<h2>Errors</h2>\n<table><tr><th>file</th><th>message</th></tr>\n";
    for (const ReportData::Row &R : D.Rows)
      if (R.Result.Error)
        OS << fmt::format("<tr><td><code>{}</code></td><td><pre>{}</pre>"
                          "</td></tr>\n",
                          esc(R.Test.Path), esc(R.Result.ErrorText));
    OS << "</table>\n";
  }
  OS << "</body></html>\n";
}

} // namespace incant::campaign
