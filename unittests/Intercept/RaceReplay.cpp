//===- RaceReplay.cpp - Replaying access logs through the race checker ----===//
#include "RaceReplay.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <sstream>

namespace incant::racetest {

namespace {

using Checker = IncantRaceChecker<HostMem>;

/// The checker's tables in host memory.
struct Tables {
  std::vector<IncantRaceEntry> Shadow;
  std::vector<IncantRaceThread> Threads;
  std::vector<IncantRaceBlock> Blocks;
  std::vector<IncantRaceLogEntry> Log;
  std::vector<incant_u32> Next;
  std::vector<IncantRaceHit> Hits;
  std::vector<incant_u64> Counters;
  std::vector<IncantRaceSync> Syncs;
  IncantRaceState S = {};
};

incant_u64 ptr(const void *P) { return reinterpret_cast<incant_u64>(P); }

bool parseDims(const std::string &W, unsigned N, std::vector<incant_u32> &Out) {
  std::stringstream SS(W);
  std::string Part;
  Out.assign(N, 1);
  for (unsigned I = 0; std::getline(SS, Part, ','); ++I) {
    if (I >= N || Part.empty())
      return false;
    Out[I] = static_cast<incant_u32>(std::stoul(Part));
  }
  return true;
}

/// The fields of a synchronisation line after its first two words:
/// positional values and key=value pairs (a bare key maps to "").
struct Fields {
  std::vector<std::string> Pos;
  std::map<std::string, std::string> Keys;
};

Fields fields(const std::vector<std::string> &Words) {
  Fields F;
  for (size_t I = 2; I < Words.size(); ++I) {
    size_t Eq = Words[I].find('=');
    if (Words[I][0] >= '0' && Words[I][0] <= '9')
      F.Pos.push_back(Words[I]);
    else if (Eq == std::string::npos)
      F.Keys[Words[I]] = "";
    else
      F.Keys[Words[I].substr(0, Eq)] = Words[I].substr(Eq + 1);
  }
  return F;
}

incant_u64 num(const std::string &S) { return std::stoull(S, nullptr, 0); }

/// A synchronisation or copy line (RaceReplay.h): nullopt where \p Words
/// is none, "" after replaying it, else what is wrong with it.
std::optional<std::string> syncLine(const IncantRaceChecker<HostMem> &C,
                                    const std::vector<std::string> &Words,
                                    incant_u32 Tpb, incant_u32 Wpb,
                                    incant_u32 ClusterBlocks,
                                    const incant_u32 *Geom, incant_u32 Pos) {
  static const std::set<std::string> Ops = {
      "named-arrive", "named-wait", "cluster-arrive", "cluster-wait",
      "mbar-init",    "mbar-arrive", "mbar-wait",     "cp-async",
      "cp-commit",    "cp-wait",     "cp-wait-all",   "cp-mbar",
      "bulk"};
  const std::string &Op = Words[0];
  if (!Ops.count(Op))
    return std::nullopt;
  if (Words.size() < 2 || Words[1].size() < 2 || Words[1][0] != 'w')
    return std::string("expected '") + Op + " wN ...'";
  incant_u32 Warp = incant_u32(std::stoul(Words[1].substr(1)));
  incant_u32 Blk = Warp / Wpb;
  Fields F = fields(Words);
  std::vector<incant_u32> Lanes;
  if (F.Keys.count("lanes")) {
    std::stringstream SS(F.Keys["lanes"]);
    for (std::string L; std::getline(SS, L, ',');)
      Lanes.push_back(incant_u32(std::stoul(L)));
  } else {
    bool One = Op == "mbar-init" || Op == "bulk";
    for (incant_u32 L = 0; L < (One ? 1u : 32u) && (Warp % Wpb) * 32 + L < Tpb;
         ++L)
      Lanes.push_back(L);
  }
  auto Need = [&](size_t N) { return F.Pos.size() >= N; };
  incant_u32 First = Blk - Blk % ClusterBlocks;
  incant_u32 Step = F.Keys.count("step") ? incant_u32(num(F.Keys["step"])) : 0;
  incant_u32 Site = F.Keys.count("site") ? incant_u32(num(F.Keys["site"])) : 0;
  for (incant_u32 L : Lanes) {
    incant_u32 Tid = Blk * Tpb + (Warp % Wpb) * 32 + L;
    if (Op == "named-arrive" || Op == "named-wait") {
      incant_u32 Id = incant_u32(num(F.Keys["id"]));
      if (Op == "named-wait")
        C.waitOwn(Tid, Blk, Id, Pos, Warp);
      else
        C.arrive(Tid, Blk, Id, F.Keys.count("count") ? incant_u32(num(F.Keys["count"])) : Tpb,
                 1, 1, Warp);
    } else if (Op == "cluster-arrive") {
      C.clusterArrive(Tid, First, ClusterBlocks * Tpb, Warp);
    } else if (Op == "cluster-wait") {
      C.clusterWait(Tid, First, Pos, Warp);
    } else if (Op == "cp-commit") {
      C.cpCommit(Tid);
    } else if (Op == "cp-wait" || Op == "cp-wait-all") {
      if (Op == "cp-wait" && !Need(1))
        return std::string("expected 'cp-wait wN N'");
      C.cpWait(Tid, Op == "cp-wait" ? incant_u32(num(F.Pos[0])) : 0,
               Op == "cp-wait-all", Pos);
    } else if (!Need(1)) {
      return Op + ": expected an address";
    } else if (Op == "mbar-init") {
      C.mbarInit(Blk, incant_u32(num(F.Pos[0])), incant_u32(num(F.Keys["count"])),
                 Warp);
    } else if (Op == "mbar-arrive") {
      incant_u32 A = incant_u32(num(F.Pos[0]));
      C.arrive(Tid, Blk, C.mbarObj(Blk, A, 0, Warp), 0,
               F.Keys.count("count") ? incant_u32(num(F.Keys["count"])) : 1, 1,
               Warp);
    } else if (Op == "mbar-wait") {
      incant_u32 Aux = F.Keys.count("parity")
                           ? (incant_u32(num(F.Keys["parity"])) & 1u) | 2u
                           : 0u;
      C.mbarWait(Tid, Blk, incant_u32(num(F.Pos[0])), Aux, Pos, Warp);
    } else if (Op == "cp-mbar") {
      C.cpMbarArrive(Tid, Blk, incant_u32(num(F.Pos[0])), F.Keys.count("noinc"),
                     Warp);
    } else if (!Need(3) || (Op == "bulk" && !Need(4))) {
      return Op + ": expected DST SRC BYTES" + (Op == "bulk" ? " MBAR" : "");
    } else {
      incant_u32 Dst = incant_u32(num(F.Pos[0])) + L * Step;
      incant_u64 Src = num(F.Pos[1]) + incant_u64(L) * Step;
      incant_u32 Bytes = incant_u32(num(F.Pos[2]));
      incant_u32 Done = Op == "bulk" ? C.bulkDone(Blk, incant_u32(num(F.Pos[3])), Warp)
                                     : C.groupDone(Tid);
      C.copy(Tid, Warp, L, Blk, 0, Site, Dst, Src, Bytes, Done, Geom);
    }
  }
  return std::string();
}

} // namespace

ReplayResult replay(const std::string &Log, const ReplayOptions &O) {
  ReplayResult R;
  Tables T;
  std::vector<incant_u32> Ntid = {32, 1, 1}, Nctaid = {1, 1};
  bool Launched = false;
  Checker C = {&T.S};
  incant_u32 Geom[5] = {};
  incant_u32 Tpb = 32, Wpb = 1, ClusterBlocks = 1;

  auto Start = [&] {
    Tpb = Ntid[0] * Ntid[1] * Ntid[2];
    Wpb = (Tpb + 31) / 32;
    incant_u32 Blocks = Nctaid[0] * Nctaid[1];
    T.Shadow.assign(O.ShadowEntries, IncantRaceEntry{});
    T.Threads.assign(size_t(Blocks) * Tpb, IncantRaceThread{});
    T.Syncs.assign(size_t(Blocks) * Tpb, IncantRaceSync{});
    T.Blocks.assign(Blocks, IncantRaceBlock{});
    T.Log.assign(O.LogEntries, IncantRaceLogEntry{});
    T.Next.assign(size_t(O.LogEntries) * 32, 0);
    T.Hits.assign(O.Hits, IncantRaceHit{});
    T.Counters.assign(INCANT_RACE_COUNTERS * INCANT_RACE_COUNTER_COPIES, 0);
    IncantRaceState &S = T.S;
    S = {};
    S.launch = 1;
    S.scheme = O.Scheme;
    S.shadowMask = O.ShadowEntries - 1;
    S.maxProbe = O.MaxProbe;
    S.threadCap = incant_u32(T.Threads.size());
    S.blockCap = Blocks;
    S.logCap = O.LogEntries;
    S.hitMask = O.Hits - 1;
    S.walkCap = O.Walk;
    S.shadow = ptr(T.Shadow.data());
    S.threads = ptr(T.Threads.data());
    S.blocks = ptr(T.Blocks.data());
    S.log = ptr(T.Log.data());
    S.next = ptr(T.Next.data());
    S.hits = ptr(T.Hits.data());
    S.counters = ptr(T.Counters.data());
    S.syncs = ptr(T.Syncs.data());
    Geom[0] = Ntid[0], Geom[1] = Ntid[1], Geom[2] = Ntid[2];
    Geom[3] = Nctaid[0], Geom[4] = Nctaid[1];
    Launched = true;
  };

  std::istringstream In(Log);
  std::string Line;
  unsigned LineNo = 0;
  auto Fail = [&](const std::string &Why) {
    R.Error = "line " + std::to_string(LineNo) + ": " + Why + ": " + Line;
    return R;
  };
  while (std::getline(In, Line)) {
    ++LineNo;
    if (size_t H = Line.find('#'); H != std::string::npos)
      Line.resize(H);
    std::istringstream W(Line);
    std::vector<std::string> Words;
    for (std::string X; W >> X;)
      Words.push_back(X);
    if (Words.empty())
      continue;
    const std::string &Op = Words[0];
    if (Op == "launch") {
      ClusterBlocks = 1;
      if (Words.size() == 4 && Words[3].rfind("cluster=", 0) == 0)
        ClusterBlocks = incant_u32(std::stoul(Words[3].substr(8)));
      else if (Words.size() != 3)
        return Fail("expected 'launch X[,Y,Z] X[,Y] [cluster=N]'");
      if (!parseDims(Words[1], 3, Ntid) || !parseDims(Words[2], 2, Nctaid))
        return Fail("expected 'launch X[,Y,Z] X[,Y] [cluster=N]'");
      Start();
      continue;
    }
    if (!Launched)
      Start();
    if (std::optional<std::string> E =
            syncLine(C, Words, Tpb, Wpb, ClusterBlocks, Geom, T.S.logCount)) {
      if (!E->empty())
        return Fail(*E);
      continue;
    }
    if (Op == "bar" && Words.size() == 2) {
      incant_u32 B = incant_u32(std::stoul(Words[1]));
      for (incant_u32 I = 0; I < Tpb; ++I)
        C.barrier(B * Tpb + I);
      continue;
    }
    if (Op == "syncwarp" && Words.size() == 2) {
      incant_u32 Wp = incant_u32(std::stoul(Words[1]));
      incant_u32 Base = (Wp / Wpb) * Tpb + (Wp % Wpb) * 32;
      for (incant_u32 L = 0; L < 32 && (Wp % Wpb) * 32 + L < Tpb; ++L)
        C.warpBarrier(Base + L);
      continue;
    }
    if (Op == "fence" && Words.size() == 3) {
      incant_u32 Tid = incant_u32(std::stoul(Words[2]));
      C.release(Tid, Tid / Tpb,
                Words[1] == "cta" ? INCANT_RACE_SCOPE_CTA : INCANT_RACE_SCOPE_GPU,
                T.S.logCount);
      continue;
    }
    if (Op.size() < 2 || Op[0] != 'w' || Words.size() < 5)
      return Fail("expected launch, bar, syncwarp, fence or wN ACCESS");
    // wN KIND SPACE BYTES ADDR key=value...
    incant_u32 Warp = incant_u32(std::stoul(Op.substr(1)));
    const std::string &Kind = Words[1], &Sp = Words[2];
    incant_u32 Bytes = incant_u32(std::stoul(Words[3]));
    incant_u64 Addr = std::stoull(Words[4], nullptr, 0);
    incant_u32 Info = 0, Site = 0, Scope = 0, Step = 0, Owner = ~0u;
    bool Release = false;
    std::vector<std::pair<incant_u32, incant_u64>> Lanes;
    if (Kind == "read")
      Info = INCANT_RACE_READ;
    else if (Kind == "write")
      Info = INCANT_RACE_WRITE;
    else if (Kind == "atomic")
      Info = INCANT_RACE_READ | INCANT_RACE_WRITE | INCANT_RACE_ATOMIC,
      Scope = INCANT_RACE_SCOPE_GPU;
    else if (Kind == "red")
      Info = INCANT_RACE_WRITE | INCANT_RACE_ATOMIC, Scope = INCANT_RACE_SCOPE_GPU;
    else
      return Fail("unknown access kind");
    incant_u32 Space = Sp == "shared" ? INCANT_RACE_SPACE_SHARED
                                      : INCANT_RACE_SPACE_GLOBAL;
    for (size_t I = 5; I < Words.size(); ++I) {
      const std::string &KV = Words[I];
      size_t Eq = KV.find('=');
      std::string K = KV.substr(0, Eq), V = Eq == std::string::npos ? "" : KV.substr(Eq + 1);
      if (K == "site")
        Site = incant_u32(std::stoul(V));
      else if (K == "scope")
        Scope = V == "cta" ? INCANT_RACE_SCOPE_CTA
                : V == "sys" ? INCANT_RACE_SCOPE_SYS
                             : INCANT_RACE_SCOPE_GPU;
      else if (K == "release")
        Release = true;
      else if (K == "step")
        Step = incant_u32(std::stoul(V, nullptr, 0));
      else if (K == "owner")
        Owner = incant_u32(std::stoul(V));
      else if (K == "lanes") {
        std::stringstream SS(V);
        std::string L;
        while (std::getline(SS, L, ','))
          Lanes.push_back({incant_u32(std::stoul(L)), 0});
      } else
        return Fail("unknown field " + K);
    }
    if (Lanes.empty())
      Lanes.push_back({0, 0});
    for (auto &[L, A] : Lanes)
      A = Addr + incant_u64(L) * Step;
    unsigned Log2 = 0;
    while ((1u << Log2) < Bytes)
      ++Log2;
    Info |= Site | Scope << INCANT_RACE_SCOPE_SHIFT |
            Log2 << INCANT_RACE_SIZE_SHIFT | Space << INCANT_RACE_SPACE_SHIFT;
    if (Release)
      Info |= INCANT_RACE_RELEASE;

    // What the access hook does, lane by lane. owner=B: distributed
    // shared memory of block B of the cluster.
    const incant_u32 Base = (Warp / Wpb) * Tpb + (Warp % Wpb) * 32;
    auto Tid = [&](incant_u32 L) { return Base + L; };
    incant_u32 Blk = Owner != ~0u ? Owner : Warp / Wpb;
    incant_u32 Mask = 0;
    for (auto &[L, A] : Lanes)
      Mask |= 1u << L;
    C.count(INCANT_RACE_CNT_ACCESSES, Lanes.size(), Warp);
    C.count(INCANT_RACE_CNT_WARP_ACCESSES, 1, Warp);
    std::map<incant_u64, std::vector<incant_u32>> Groups; // __match_any_sync
    for (auto &[L, A] : Lanes)
      Groups[Checker::logged(Space, Blk, A)].push_back(L);
    for (auto &[Logged, Ls] : Groups)
      if (Ls.size() > 1)
        C.intraWarp(Tid(Ls[0]), Tid(Ls[1]), 0, Info, Space, Logged, Geom, Warp);
    if (O.Scheme == INCANT_RACE_SCHEME_STMT) {
      incant_u32 Pos = T.S.logCount++;
      if (Pos >= T.S.logCap) {
        C.count(INCANT_RACE_CNT_LOG_FULL, Lanes.size(), Warp);
        continue;
      }
      IncantRaceLogEntry *E = &T.Log[Pos];
      for (auto &[L, A] : Lanes) {
        if (Release)
          C.release(Tid(L), Warp / Wpb, Scope, Pos);
        C.logLane(E, L, Tid(L), Checker::logged(Space, Blk, A));
      }
      Checker::logHeader(E, Warp, 0, Info, Mask, Geom);
      continue;
    }
    for (auto &[L, A] : Lanes)
      if (Release)
        C.release(Tid(L), Warp / Wpb, Scope, 0);
    for (auto &[Logged, Ls] : Groups) {
      incant_u64 A = 0;
      for (auto &[L, X] : Lanes)
        if (L == Ls[0])
          A = X;
      C.recordAccess(Tid(Ls[0]), Blk, 0, Info & ~INCANT_RACE_RELEASE, Space, A,
                     Geom, Warp);
    }
  }

  // stmt: the checking kernels' two phases after the launch.
  if (O.Scheme == INCANT_RACE_SCHEME_STMT && Launched) {
    incant_u32 N = std::min(T.S.logCount, T.S.logCap) * 32;
    for (incant_u32 I = 0; I < N; ++I)
      C.bucket(I, I / 32);
    for (incant_u32 I = 0; I < N; ++I)
      C.pairs(I, I / 32);
  }
  for (const IncantRaceHit &H : T.Hits)
    if (H.key) {
      Found F;
      F.SiteA = incant_race_hit_where_a(H.key) & INCANT_RACE_SITE_MASK;
      F.SiteB = incant_race_hit_where_b(H.key) & INCANT_RACE_SITE_MASK;
      F.Hazard = incant_race_hit_hazard(H.key);
      F.Space = incant_race_hit_space(H.key);
      F.Count = H.count;
      F.TidA = H.tidA;
      F.TidB = H.tidB;
      R.Races.push_back(F);
    }
  std::sort(R.Races.begin(), R.Races.end(), [](const Found &A, const Found &B) {
    return std::tie(A.SiteA, A.SiteB, A.Hazard) <
           std::tie(B.SiteA, B.SiteB, B.Hazard);
  });
  for (size_t I = 0; I < T.Counters.size(); ++I)
    R.Counters[I % INCANT_RACE_COUNTERS] += T.Counters[I];
  return R;
}

} // namespace incant::racetest
