// vector_add written directly in the ptx dialect: c[i] = a[i] + b[i].
module attributes {ptx.target = "sm_80"} {
  ptx.entry @vector_add(%a: i64 {ptx.ptr = f32, ptx.readonly, ptx.align = 16}, %b: i64 {ptx.ptr = f32, ptx.readonly}, %c: i64 {ptx.ptr = f32}, %n: i32) attributes {maxntid = array<i32: 256>} {
    %tid = ptx.sreg tid.x : i32
    %ctaid = ptx.sreg ctaid.x : i32
    %ntid = ptx.sreg ntid.x : i32
    %i = ptx.mad lo s32 %ctaid, %ntid, %tid : i32
    %oob = ptx.setp ge u32 %i, %n : i32
    ptx.cond_bra %oob, ^exit, ^body
  ^body:
    %ga = ptx.cvta to global %a : i64 -> i64
    %gb = ptx.cvta to global %b : i64 -> i64
    %gc = ptx.cvta to global %c : i64 -> i64
    %four = ptx.constant 4 : i32
    %off = ptx.mul wide u32 %i, %four : (i32, i32) -> i64
    %pa = ptx.add s64 %ga, %off : i64
    %pb = ptx.add s64 %gb, %off : i64
    %pc = ptx.add s64 %gc, %off : i64
    %x = ptx.ld global nc f32 [%pa] : i64 -> f32
    %y = ptx.ld global f32 [%pb + 0] : i64 -> f32
    %s = ptx.add rn f32 %x, %y : f32
    ptx.st global f32 [%pc], %s : i64, f32
    ptx.bra ^exit
  ^exit:
    ptx.ret
  }
}
