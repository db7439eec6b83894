// Work-group reduction in local memory with barriers, and OpenCL 2.0
// atomics with explicit memory orders and scopes.
__kernel void groupSum(__global const float *in, __global float *out,
                       __local float *scratch, int n) {
  size_t lid = get_local_id(0);
  size_t gid = get_global_id(0);
  scratch[lid] = gid < (size_t)n ? in[gid] : 0.0f;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (size_t s = get_local_size(0) / 2; s > 0; s >>= 1) {
    if (lid < s)
      scratch[lid] += scratch[lid + s];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (lid == 0)
    out[get_group_id(0)] = scratch[0];
}

__kernel void counters(__global atomic_int *count, __global atomic_uint *flags,
                       __global int *data) {
  int gid = (int)get_global_id(0);
  data[gid] = gid * 3;
  atomic_work_item_fence(CLK_GLOBAL_MEM_FENCE, memory_order_release,
                         memory_scope_device);
  atomic_fetch_add_explicit(count, 1, memory_order_relaxed,
                            memory_scope_device);
  atomic_fetch_or_explicit(flags, 1u << (gid & 31), memory_order_acq_rel,
                           memory_scope_work_group);
  int expected = 0;
  atomic_compare_exchange_strong_explicit(count, &expected, -1,
                                          memory_order_seq_cst,
                                          memory_order_relaxed,
                                          memory_scope_device);
  atomic_store_explicit(flags + 1, 7u, memory_order_release,
                        memory_scope_device);
  uint seen = atomic_load_explicit(flags + 1, memory_order_acquire,
                                   memory_scope_device);
  data[gid] += (int)seen;
  work_group_barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);
}
