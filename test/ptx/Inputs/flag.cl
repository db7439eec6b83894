// A flag handshake in OpenCL C 2.0, for incant ptx on .cl files.
__kernel void handshake(__global int *data, __global atomic_int *flag) {
  if (get_global_id(0) == 0) {
    data[0] = 42;
    atomic_store_explicit(flag, 1, memory_order_release, memory_scope_device);
  } else {
    while (atomic_load_explicit(flag, memory_order_acquire,
                                memory_scope_device) == 0) {
    }
    data[get_global_id(0)] = data[0];
  }
}
