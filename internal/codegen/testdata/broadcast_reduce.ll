; gojit module k_broadcast_reduce

; group 0 computes %5 = reduce_sum %4 axes=[1] : f32[4]
define internal void @k_broadcast_reduce.g0(ptr noalias readonly %in0, ptr noalias readonly %in1, ptr noalias %out, i64 %start, i64 %end) #1 {
entry:
  %acc3 = alloca float
  %t1 = icmp slt i64 %start, %end
  br i1 %t1, label %body1, label %exit3
body1:
  %i2 = phi i64 [ %start, %entry ], [ %i2.next, %latch2 ]
  store float 0x0000000000000000, ptr %acc3
  %t4 = icmp slt i64 0, 8
  br i1 %t4, label %body4, label %exit6
body4:
  %i5 = phi i64 [ 0, %body1 ], [ %i5.next, %latch5 ]
  %t6 = mul nuw nsw i64 %i2, 8
  %t7 = add nuw nsw i64 %t6, %i5
  %t8 = getelementptr inbounds float, ptr %in0, i64 %t7
  %t9 = load float, ptr %t8
  %t10 = getelementptr inbounds float, ptr %in1, i64 %i5
  %t11 = load float, ptr %t10
  %t12 = fadd float %t9, %t11
  %t13 = call float @llvm.exp.f32(float %t12)
  %t14 = load float, ptr %acc3
  %t15 = fadd reassoc float %t14, %t13
  store float %t15, ptr %acc3
  br label %latch5
latch5:
  %i5.next = add nuw nsw i64 %i5, 1
  %t16 = icmp slt i64 %i5.next, 8
  br i1 %t16, label %body4, label %exit6
exit6:
  %t17 = load float, ptr %acc3
  %t18 = getelementptr inbounds float, ptr %out, i64 %i2
  store float %t17, ptr %t18
  br label %latch2
latch2:
  %i2.next = add nuw nsw i64 %i2, 1
  %t19 = icmp slt i64 %i2.next, %end
  br i1 %t19, label %body1, label %exit3
exit3:
  ret void
}

define void @k_broadcast_reduce(ptr %args) #0 {
entry:
  %p0 = getelementptr inbounds ptr, ptr %args, i64 0
  %s0 = load ptr, ptr %p0, align 8
  %p1 = getelementptr inbounds ptr, ptr %args, i64 1
  %s1 = load ptr, ptr %p1, align 8
  %p2 = getelementptr inbounds ptr, ptr %args, i64 2
  %s2 = load ptr, ptr %p2, align 8
  call void @k_broadcast_reduce.g0(ptr %s0, ptr %s1, ptr %s2, i64 0, i64 4)
  ret void
}

define void @k_broadcast_reduce.range(ptr %args, i64 %group, i64 %start, i64 %end) #0 {
entry:
  %p0 = getelementptr inbounds ptr, ptr %args, i64 0
  %s0 = load ptr, ptr %p0, align 8
  %p1 = getelementptr inbounds ptr, ptr %args, i64 1
  %s1 = load ptr, ptr %p1, align 8
  %p2 = getelementptr inbounds ptr, ptr %args, i64 2
  %s2 = load ptr, ptr %p2, align 8
  switch i64 %group, label %done [
    i64 0, label %g0
  ]
g0:
  call void @k_broadcast_reduce.g0(ptr %s0, ptr %s1, ptr %s2, i64 %start, i64 %end)
  br label %done
done:
  ret void
}

declare float @llvm.exp.f32(float)

attributes #0 = { nounwind }
attributes #1 = { nounwind noinline }
