//===- Relation.cpp - Sets of events and relations as bit matrices --------===//
#include "incant/Cat/Relation.h"

#include "BitOps.h"

#include <algorithm>
#include <cassert>

namespace incant::cat {

//===----------------------------------------------------------------------===//
// EventSet
//===----------------------------------------------------------------------===//

EventSet::EventSet(unsigned N) : N(N), W(bits::wordsFor(N)) {}

bool EventSet::contains(unsigned E) const {
  assert(E < N && "event out of range");
  return bits::test(W.data(), E);
}

void EventSet::insert(unsigned E) {
  assert(E < N && "event out of range");
  bits::set(W.data(), E);
}

void EventSet::erase(unsigned E) {
  assert(E < N && "event out of range");
  bits::clear(W.data(), E);
}

bool EventSet::empty() const { return bits::isZero(W.data(), W.size()); }

unsigned EventSet::count() const { return bits::popcount(W.data(), W.size()); }

EventSet &EventSet::operator|=(const EventSet &O) {
  assert(N == O.N && "sets over different events");
  bits::orOf(W.data(), W.data(), O.W.data(), W.size());
  return *this;
}

EventSet &EventSet::operator&=(const EventSet &O) {
  assert(N == O.N && "sets over different events");
  bits::andOf(W.data(), W.data(), O.W.data(), W.size());
  return *this;
}

EventSet &EventSet::operator-=(const EventSet &O) {
  assert(N == O.N && "sets over different events");
  bits::diffOf(W.data(), W.data(), O.W.data(), W.size());
  return *this;
}

EventSet EventSet::complement() const {
  EventSet S(N);
  bits::complementSet(S.W.data(), W.data(), N);
  return S;
}

//===----------------------------------------------------------------------===//
// Relation
//===----------------------------------------------------------------------===//

void Relation::clear() { std::fill(W.begin(), W.end(), 0); }

Relation::Relation(unsigned N)
    : N(N), Words(bits::wordsFor(N)), W(size_t(N) * bits::wordsFor(N)) {}

Relation Relation::identity(unsigned N) {
  Relation R(N);
  bits::identity(R.W.data(), N);
  return R;
}

Relation Relation::product(const EventSet &S, const EventSet &T) {
  assert(S.size() == T.size() && "sets over different events");
  Relation R(S.size());
  bits::product(R.W.data(), S.words().data(), T.words().data(), R.N);
  return R;
}

Relation Relation::identityOn(const EventSet &S) {
  Relation R(S.size());
  bits::identityOn(R.W.data(), S.words().data(), R.N);
  return R;
}

bool Relation::contains(unsigned A, unsigned B) const {
  assert(A < N && B < N && "event out of range");
  return bits::test(row(A), B);
}

void Relation::insert(unsigned A, unsigned B) {
  assert(A < N && B < N && "event out of range");
  bits::set(row(A), B);
}

void Relation::erase(unsigned A, unsigned B) {
  assert(A < N && B < N && "event out of range");
  bits::clear(row(A), B);
}

bool Relation::empty() const { return bits::isZero(W.data(), W.size()); }

unsigned Relation::count() const { return bits::popcount(W.data(), W.size()); }

Relation &Relation::operator|=(const Relation &O) {
  assert(N == O.N && "relations over different events");
  bits::orOf(W.data(), W.data(), O.W.data(), W.size());
  return *this;
}

Relation &Relation::operator&=(const Relation &O) {
  assert(N == O.N && "relations over different events");
  bits::andOf(W.data(), W.data(), O.W.data(), W.size());
  return *this;
}

Relation &Relation::operator-=(const Relation &O) {
  assert(N == O.N && "relations over different events");
  bits::diffOf(W.data(), W.data(), O.W.data(), W.size());
  return *this;
}

Relation Relation::inverse() const {
  Relation R(N);
  bits::inverse(R.W.data(), W.data(), N);
  return R;
}

Relation Relation::compose(const Relation &O) const {
  assert(N == O.N && "relations over different events");
  Relation R(N);
  bits::compose(R.W.data(), W.data(), O.W.data(), N);
  return R;
}

Relation Relation::transitiveClosure() const {
  Relation R = *this;
  bits::closeTransitively(R.W.data(), N);
  return R;
}

Relation Relation::reflexiveTransitiveClosure() const {
  Relation R = transitiveClosure();
  bits::addIdentity(R.W.data(), N);
  return R;
}

Relation Relation::reflexiveClosure() const {
  Relation R = *this;
  bits::addIdentity(R.W.data(), N);
  return R;
}

Relation Relation::complement() const {
  Relation R(N);
  bits::complementRel(R.W.data(), W.data(), N);
  return R;
}

Relation Relation::restrict(const EventSet &S, const EventSet &T) const {
  assert(S.size() == N && T.size() == N && "sets over different events");
  Relation R(N);
  bits::restrict(R.W.data(), W.data(), S.words().data(), T.words().data(), N);
  return R;
}

EventSet Relation::domain() const {
  EventSet S(N);
  bits::domain(S.words().data(), W.data(), N);
  return S;
}

EventSet Relation::range() const {
  EventSet S(N);
  bits::range(S.words().data(), W.data(), N);
  return S;
}

bool Relation::isAcyclic() const { return bits::isAcyclic(W.data(), N); }

bool Relation::isIrreflexive() const {
  return bits::isIrreflexive(W.data(), N);
}

} // namespace incant::cat
