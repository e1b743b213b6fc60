// Eight f16 in one 16-byte access, through the whole pipeline: printed PTX
// assembled by ptxas, and run in the interpreter (each thread reverses its
// eight halves), whose profile shows 16-byte accesses, 16 sectors each.
// RUN: kaio-opt --kaio-to-ptx="chip=sm_80" %s | kaio-translate --mlir-to-ptx -o %t.ptx
// RUN: FileCheck %s --check-prefix=PTX < %t.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_80 %t.ptx -o %t.cubin %}
// PTX: ld.global.nc.v4.b32
// PTX: mov.b32 {%h{{[0-9]+}}, %h{{[0-9]+}}}, %r{{[0-9]+}};
// PTX: st.global.v4.b32
// RUN: kaio-run %s --interpret --kernel reverse8 --grid 1 --block 32 --arg x=f16[256]:iota --arg y=f16[256]:zeros --print y --profile | FileCheck %s
// CHECK: ld.global.16B {{.*}}1
// CHECK: st.global.16B {{.*}}1
// CHECK: ld.global {{ *}}1 {{ *}}16 {{ *}}16 {{ *}}16.00 {{ *}}512
// CHECK: [0] 7
// CHECK-NEXT: [1] 6
// CHECK-NEXT: [2] 5
// CHECK: [255] 248
kaio.kernel @reverse8(%x: !kaio.ptr<f16> {kaio.readonly}, %y: !kaio.ptr<f16>)
    attributes {block_size = array<i32: 32>} {
  %c8 = arith.constant 8 : i32
  %t = kaio.thread_id x : i32
  %i = arith.muli %t, %c8 : i32
  %h:8 = kaio.load_vector %x[%i] : !kaio.ptr<f16>, i32 -> f16, f16, f16, f16, f16, f16, f16, f16
  kaio.store_vector %h#7, %h#6, %h#5, %h#4, %h#3, %h#2, %h#1, %h#0 to %y[%i] : (f16, f16, f16, f16, f16, f16, f16, f16), !kaio.ptr<f16>, i32
  kaio.return
}
