/*===- incant_control.h - What the instrumenting build adds to a module ---===//
 *
 * Shared by the rewriter (lib/Intercept, C++) and the injected library
 * (runtime/inject*.cpp): the names and layouts of the variables that the
 * instrumenting build adds to every PTX module ("unit") it rewrites, and
 * that the injected library finds and sets at run time. Plain C, fixed-size
 * integers only.
 *
 * Per unit, <ID> being 16 lowercase hex digits unique to the rewrite:
 *   __incant_unit_<ID>   .global .b64[]: INCANT_UNIT_MAGIC, then the unit's
 *                        manifest (JSON), then a NUL, in little-endian
 *                        words (the bytes of the text). The library and
 *                        `incant sites` find units by scanning a module
 *                        image (cubin or PTX) for this name.
 *   __incant_ctl_<ID>    .const .b8[INCANT_CTL_BYTES]: run-time switches and
 *                        parameters of the unit (layout below), zero (all
 *                        off) unless the library sets them.
 * Per kernel K of a unit:
 *   __incant_k_<K>       .const .b32[INCANT_KCTL_WORDS]: word 0 what the
 *                        build found (INCANT_KINFO_*), word 1 the run-time
 *                        switches of this kernel (INCANT_RND_*), words 2
 *                        and 3 the unit id (its 64 bits, low word first).
 * Later passes add their own per-unit variables, named
 * __incant_<pass>_<ID>, beside these:
 *   __incant_fmask_<ID> .const .b32[INCANT_FENCE_KINDS * W] (pass "fences"):
 *                        the switchable fences. Site S of the unit (its id
 *                        in the manifest) has, for each fence kind K, a
 *                        fence guarded by bit S % 32 of word K * W + S / 32;
 *                        W = the unit's last fence site / 32 + 1. Zero:
 *                        every fence off.
 *
 * Values are written once per module and context, before the first launch
 * that can read them, and never while a kernel may read them: everything
 * here is fixed for the life of the process.
 *
 *===----------------------------------------------------------------------===*/
#ifndef INCANT_CONTROL_H
#define INCANT_CONTROL_H

#define INCANT_UNIT_PREFIX "__incant_unit_"
#define INCANT_CTL_PREFIX "__incant_ctl_"
#define INCANT_KCTL_PREFIX "__incant_k_"
#define INCANT_UNIT_ID_CHARS 16
/* The first bytes of a unit's manifest variable. */
#define INCANT_UNIT_MAGIC "INCANT-UNIT1\n"

/* Unit control block (__incant_ctl_<ID>), byte offsets. */
#define INCANT_CTL_FLAGS 0     /* u32: INCANT_RND_* for device functions  */
#define INCANT_CTL_WARP_MUL 4  /* u32: a prime > 32                       */
#define INCANT_CTL_WARP_ADD 8  /* u32                                     */
#define INCANT_CTL_BLK_MUL 12  /* u32: odd                                */
#define INCANT_CTL_BLK_ADD 16  /* u32[3]: per dimension x, y, z           */
#define INCANT_CTL_BYTES 64

/* Kernel control words (__incant_k_<K>). */
#define INCANT_KCTL_INFO 0
#define INCANT_KCTL_ENABLE 1
#define INCANT_KCTL_UNIT_LO 2
#define INCANT_KCTL_UNIT_HI 3
#define INCANT_KCTL_WORDS 4

/* Run-time switches (INCANT_CTL_FLAGS and INCANT_KCTL_ENABLE). */
#define INCANT_RND_BLOCKS 0x1u /* permute block ids within each dimension  */
#define INCANT_RND_WARPS 0x2u  /* permute whole warps of a block, keep lanes */

/* Fence kinds of the switchable fences, in the order of their masks
 * (INCANT_FENCE_KIND_NAMES: the PTX instruction each kind inserts). */
#define INCANT_FMASK_PREFIX "__incant_fmask_"
#define INCANT_FENCE_KINDS 4
#define INCANT_FENCE_SC_GPU 0     /* fence.sc.gpu (membar.gl, __threadfence) */
#define INCANT_FENCE_ACQREL_GPU 1 /* fence.acq_rel.gpu                      */
#define INCANT_FENCE_SC_CTA 2     /* fence.sc.cta (__threadfence_block)     */
#define INCANT_FENCE_ACQREL_CTA 3 /* fence.acq_rel.cta                      */
#define INCANT_FENCE_KIND_NAMES                                                \
  { "sc.gpu", "acq_rel.gpu", "sc.cta", "acq_rel.cta" }

/* What the build found (INCANT_KCTL_INFO). */
#define INCANT_KINFO_IDS_REMAPPED 0x1u  /* the kernel's id reads were rewritten   */
#define INCANT_KINFO_CALLS_REMAPPED 0x2u /* it calls device functions whose id
                                            reads follow the unit's switches     */
#define INCANT_KINFO_LEFT_ALONE 0x4u     /* ids not rewritten (manifest says why) */

#endif /* INCANT_CONTROL_H */
