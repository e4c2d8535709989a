; gojit module k_chain

; group 0 computes %8 = max %6, %7 : f32[1024]
define internal void @k_chain.g0(ptr noalias readonly %in0, ptr noalias readonly %in1, ptr noalias %out, i64 %start, i64 %end) #1 {
entry:
  %t1 = icmp slt i64 %start, %end
  br i1 %t1, label %body1, label %exit3
body1:
  %i2 = phi i64 [ %start, %entry ], [ %i2.next, %latch2 ]
  %t3 = getelementptr inbounds float, ptr %in0, i64 %i2
  %t4 = load float, ptr %t3
  %t5 = getelementptr inbounds float, ptr %in1, i64 %i2
  %t6 = load float, ptr %t5
  %t7 = fadd float %t4, %t6
  %t8 = fmul float %t7, %t4
  %t9 = fmul float %t6, 0x3FE0000000000000
  %t10 = fsub float %t8, %t9
  %t11 = call float @llvm.maximum.f32(float %t10, float 0x0000000000000000)
  %t12 = getelementptr inbounds float, ptr %out, i64 %i2
  store float %t11, ptr %t12
  br label %latch2
latch2:
  %i2.next = add nuw nsw i64 %i2, 1
  %t13 = icmp slt i64 %i2.next, %end
  br i1 %t13, label %body1, label %exit3
exit3:
  ret void
}

define void @k_chain(ptr %args) #0 {
entry:
  %p0 = getelementptr inbounds ptr, ptr %args, i64 0
  %s0 = load ptr, ptr %p0, align 8
  %p1 = getelementptr inbounds ptr, ptr %args, i64 1
  %s1 = load ptr, ptr %p1, align 8
  %p2 = getelementptr inbounds ptr, ptr %args, i64 2
  %s2 = load ptr, ptr %p2, align 8
  call void @k_chain.g0(ptr %s0, ptr %s1, ptr %s2, i64 0, i64 1024)
  ret void
}

define void @k_chain.range(ptr %args, i64 %group, i64 %start, i64 %end, i64 %size) #0 {
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
  call void @k_chain.g0(ptr %s0, ptr %s1, ptr %s2, i64 %start, i64 %end)
  br label %done
done:
  ret void
}

declare float @llvm.maximum.f32(float, float)

attributes #0 = { nounwind }
attributes #1 = { nounwind noinline "prefer-vector-width"="512" }
