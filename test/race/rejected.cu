// A source nvcc rejects: its message, then exit 2.
// REQUIRES: nvcc
// RUN: %incant race %S/Inputs/bad.cu 2> %t; test $? -eq 2
// RUN: FileCheck %s < %t
// CHECK: bad.cu(3): error: expected a ";"
// CHECK: incant: error: {{.*}}bad.cu: nvcc failed (exit code 1)
