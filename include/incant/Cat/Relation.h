//===- Relation.h - Sets of events and binary relations over them -*- C++ -*-===//
//
// The only thing the cat interpreter knows about an execution: a number of
// events 0..N-1, named sets of events and named relations between them.
// Both are dense bit matrices; executions of litmus tests have tens of
// events, so a row is usually one machine word.
//
//===----------------------------------------------------------------------===//
#ifndef INCANT_CAT_RELATION_H
#define INCANT_CAT_RELATION_H

#include <cstdint>
#include <vector>

namespace incant::cat {

/// A set of events, as a bit vector over 0..size()-1.
class EventSet {
public:
  EventSet() = default;
  explicit EventSet(unsigned N);
  unsigned size() const { return N; }
  bool contains(unsigned E) const;
  void insert(unsigned E);
  void erase(unsigned E);
  bool empty() const;
  unsigned count() const;
  EventSet &operator|=(const EventSet &O);
  EventSet &operator&=(const EventSet &O);
  EventSet &operator-=(const EventSet &O);
  EventSet complement() const;
  friend bool operator==(const EventSet &, const EventSet &) = default;
  const std::vector<uint64_t> &words() const { return W; }
  std::vector<uint64_t> &words() { return W; }

private:
  unsigned N = 0;
  std::vector<uint64_t> W;
};

/// A binary relation over events 0..size()-1, as one EventSet-like row of
/// successors per event.
class Relation {
public:
  Relation() = default;
  explicit Relation(unsigned N);
  static Relation identity(unsigned N);
  /// S x T.
  static Relation product(const EventSet &S, const EventSet &T);
  /// [S]: the identity restricted to S.
  static Relation identityOn(const EventSet &S);

  unsigned size() const { return N; }
  /// Removes every pair, keeping the size (and the storage).
  void clear();
  bool contains(unsigned A, unsigned B) const;
  void insert(unsigned A, unsigned B);
  void erase(unsigned A, unsigned B);
  bool empty() const;
  unsigned count() const;

  Relation &operator|=(const Relation &O);
  Relation &operator&=(const Relation &O);
  Relation &operator-=(const Relation &O);
  Relation inverse() const;
  /// this ; O (relational composition).
  Relation compose(const Relation &O) const;
  /// r+ and r*.
  Relation transitiveClosure() const;
  Relation reflexiveTransitiveClosure() const;
  /// r? = r | id.
  Relation reflexiveClosure() const;
  Relation complement() const;
  /// Pairs (a,b) with a in S and b in T.
  Relation restrict(const EventSet &S, const EventSet &T) const;
  EventSet domain() const;
  EventSet range() const;

  bool isAcyclic() const;
  bool isIrreflexive() const;

  /// Successor row of event A (bit words of size() bits).
  const uint64_t *row(unsigned A) const { return &W[A * Words]; }
  uint64_t *row(unsigned A) { return &W[A * Words]; }
  unsigned wordsPerRow() const { return Words; }
  friend bool operator==(const Relation &, const Relation &) = default;

private:
  unsigned N = 0;
  unsigned Words = 0;
  std::vector<uint64_t> W;
};

} // namespace incant::cat

#endif // INCANT_CAT_RELATION_H
