// Ops the printer cannot print are located errors, and nothing is printed.
// RUN: not kaio-translate --mlir-to-ptx --ptx-chip=sm_80 --allow-unregistered-dialect %s 2>&1 | FileCheck %s
// RUN: kaio-translate --mlir-to-ptx --ptx-chip=sm_80 --allow-unregistered-dialect --split-input-file --verify-diagnostics %s

// An op from another dialect inside a kernel.
// CHECK: errors.mlir:[[@LINE+4]]:8: error: cannot print 'arith.addi' as PTX; lower it to the ptx dialect first
// CHECK-NOT: .visible .entry
ptx.entry @not_lowered(%a: i32) {
  // expected-error @+1 {{cannot print 'arith.addi' as PTX; lower it to the ptx dialect first}}
  %0 = "arith.addi"(%a, %a) : (i32, i32) -> i32
  ptx.ret
}

// -----

// A value of a type that has no PTX register class.
ptx.entry @bad_register(%a: i32) {
  // expected-error @+1 {{cannot print a value of type 'i8' as a PTX register}}
  %0 = "test.trunc"(%a) : (i32) -> i8
  ptx.ret
}

// -----

// Something other than a kernel or a variable at module level.
// expected-error @+1 {{cannot print 'test.global' at module level as PTX}}
"test.global"() : () -> ()
