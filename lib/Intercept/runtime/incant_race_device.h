/*===- incant_race_device.h - The device side of the memory policy --------===//
 *
 * IncantRaceChecker's memory policy on the GPU: loads and stores of the
 * checker's own state are volatile (other threads update it while the
 * kernel runs), updates that must not be lost are atomics. Included by
 * incant_race_hooks.cu and incant_race_check.cu.
 *
 *===----------------------------------------------------------------------===*/
#ifndef INCANT_RACE_DEVICE_H
#define INCANT_RACE_DEVICE_H

#include "incant_race_shadow.h"

struct IncantRaceDeviceMem {
  static __device__ __forceinline__ incant_u64 ld64(const incant_u64 *P) {
    return *(const volatile incant_u64 *)P;
  }
  static __device__ __forceinline__ void st64(incant_u64 *P, incant_u64 V) {
    *(volatile incant_u64 *)P = V;
  }
  /* A record's two words in one 16-byte access (P is 16-byte aligned):
   * two 8-byte accesses let a concurrent update tear the record, and the
   * record's 12-bit check lets one tear in 4,096 through (a false race on
   * histogram64's byte counters). */
  static __device__ __forceinline__ void ld128(const incant_u64 *P,
                                               incant_u64 *W0,
                                               incant_u64 *W1) {
    asm volatile("ld.volatile.v2.u64 {%0, %1}, [%2];"
                 : "=l"(*W0), "=l"(*W1)
                 : "l"(P)
                 : "memory");
  }
  static __device__ __forceinline__ void st128(incant_u64 *P, incant_u64 W0,
                                               incant_u64 W1) {
    asm volatile("st.volatile.v2.u64 [%0], {%1, %2};" ::"l"(P), "l"(W0),
                 "l"(W1)
                 : "memory");
  }
  static __device__ __forceinline__ incant_u64 cas64(incant_u64 *P,
                                                     incant_u64 C,
                                                     incant_u64 V) {
    return atomicCAS(P, C, V);
  }
  static __device__ __forceinline__ incant_u64 add64(incant_u64 *P,
                                                     incant_u64 V) {
    return atomicAdd(P, V);
  }
  static __device__ __forceinline__ incant_u32 ld32(const incant_u32 *P) {
    return *(const volatile incant_u32 *)P;
  }
  static __device__ __forceinline__ void st32(incant_u32 *P, incant_u32 V) {
    *(volatile incant_u32 *)P = V;
  }
  static __device__ __forceinline__ incant_u32 add32(incant_u32 *P,
                                                     incant_u32 V) {
    return atomicAdd(P, V);
  }
  static __device__ __forceinline__ incant_u32 exch32(incant_u32 *P,
                                                      incant_u32 V) {
    return atomicExch(P, V);
  }
  static __device__ __forceinline__ incant_u32 cas32(incant_u32 *P,
                                                     incant_u32 C,
                                                     incant_u32 V) {
    return atomicCAS(P, C, V);
  }
  static __device__ __forceinline__ void max32(incant_u32 *P, incant_u32 V) {
    atomicMax(P, V);
  }
  static __device__ __forceinline__ void fence() { __threadfence(); }
};

typedef IncantRaceChecker<IncantRaceDeviceMem> IncantRaceDeviceChecker;

#endif /* INCANT_RACE_DEVICE_H */
