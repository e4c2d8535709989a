; gojit module k_dynamic_reduce_concat

; group 0 computes %1 = reduce_sum %0 axes=[0] : f32[6]
define internal void @k_dynamic_reduce_concat.g0(ptr noalias readonly %in0, ptr noalias %out, i64 %start, i64 %end, i64 %size) #1 {
entry:
  %t1 = icmp slt i64 %start, %end
  br i1 %t1, label %body1, label %exit3
body1:
  %i2 = phi i64 [ %start, %entry ], [ %i2.next, %latch2 ]
  %t3 = icmp slt i64 0, 6
  br i1 %t3, label %body4, label %exit6
body4:
  %i4 = phi i64 [ 0, %body1 ], [ %i4.next, %latch5 ]
  %t5 = add nuw nsw i64 0, %i4
  %t6 = getelementptr inbounds float, ptr %out, i64 %t5
  store float 0x0000000000000000, ptr %t6
  br label %latch5
latch5:
  %i4.next = add nuw nsw i64 %i4, 1
  %t7 = icmp slt i64 %i4.next, 6
  br i1 %t7, label %body4, label %exit6
exit6:
  %t8 = icmp slt i64 0, %size
  br i1 %t8, label %body7, label %exit9
body7:
  %i9 = phi i64 [ 0, %exit6 ], [ %i9.next, %latch8 ]
  %t10 = icmp slt i64 0, 6
  br i1 %t10, label %body10, label %exit12
body10:
  %i11 = phi i64 [ 0, %body7 ], [ %i11.next, %latch11 ]
  %t12 = mul nuw nsw i64 %i9, 6
  %t13 = add nuw nsw i64 %t12, %i11
  %t14 = getelementptr inbounds float, ptr %in0, i64 %t13
  %t15 = load float, ptr %t14
  %t16 = getelementptr inbounds float, ptr %out, i64 %i11
  %t17 = load float, ptr %t16
  %t18 = fadd float %t17, %t15
  %t19 = getelementptr inbounds float, ptr %out, i64 %i11
  store float %t18, ptr %t19
  br label %latch11
latch11:
  %i11.next = add nuw nsw i64 %i11, 1
  %t20 = icmp slt i64 %i11.next, 6
  br i1 %t20, label %body10, label %exit12
exit12:
  br label %latch8
latch8:
  %i9.next = add nuw nsw i64 %i9, 1
  %t21 = icmp slt i64 %i9.next, %size
  br i1 %t21, label %body7, label %exit9
exit9:
  br label %latch2
latch2:
  %i2.next = add nuw nsw i64 %i2, 1
  %t22 = icmp slt i64 %i2.next, %end
  br i1 %t22, label %body1, label %exit3
exit3:
  ret void
}

; group 1 computes %3 = div %1, %2 : f32[6]
define internal void @k_dynamic_reduce_concat.g1(ptr noalias readonly %in1, ptr noalias %out, i64 %start, i64 %end, i64 %size) #1 {
entry:
  %const2 = uitofp i64 %size to float
  %t1 = icmp slt i64 %start, %end
  br i1 %t1, label %body1, label %exit3
body1:
  %i2 = phi i64 [ %start, %entry ], [ %i2.next, %latch2 ]
  %t3 = getelementptr inbounds float, ptr %in1, i64 %i2
  %t4 = load float, ptr %t3
  %t5 = fdiv float %t4, %const2
  %t6 = getelementptr inbounds float, ptr %out, i64 %i2
  store float %t5, ptr %t6
  br label %latch2
latch2:
  %i2.next = add nuw nsw i64 %i2, 1
  %t7 = icmp slt i64 %i2.next, %end
  br i1 %t7, label %body1, label %exit3
exit3:
  ret void
}

; group 2 computes %5 = concat %0, %4 axes=[0] : f32[62,6]
define internal void @k_dynamic_reduce_concat.g2(ptr noalias readonly %in0, ptr noalias %out, i64 %start, i64 %end, i64 %size) #1 {
entry:
  %t1 = icmp slt i64 %start, %end
  br i1 %t1, label %body1, label %exit3
body1:
  %i2 = phi i64 [ %start, %entry ], [ %i2.next, %latch2 ]
  %t3 = icmp slt i64 0, 6
  br i1 %t3, label %body4, label %exit6
body4:
  %i4 = phi i64 [ 0, %body1 ], [ %i4.next, %latch5 ]
  %t5 = sub nsw i64 %size, 1
  %t6 = icmp sgt i64 %i2, %t5
  %t7 = select i1 %t6, i64 %t5, i64 %i2
  %t8 = icmp sgt i64 %size, 0
  br i1 %t8, label %part7, label %parted8
part7:
  %t9 = mul nuw nsw i64 %t7, 6
  %t10 = add nuw nsw i64 %t9, %i4
  %t11 = getelementptr inbounds float, ptr %in0, i64 %t10
  %t12 = load float, ptr %t11
  br label %parted8
parted8:
  %t13 = phi float [ %t12, %part7 ], [ 0x0000000000000000, %body4 ]
  %t14 = sub i64 %i2, %size
  %t15 = icmp slt i64 %t14, 0
  %t16 = select i1 %t15, i64 0, i64 %t14
  %t17 = icmp sgt i64 %t16, 0
  %t18 = select i1 %t17, i64 0, i64 %t16
  %t19 = add nuw nsw i64 %size, 1
  %t20 = icmp slt i64 %i2, %size
  %t21 = select i1 %t20, float %t13, float 0x0000000000000000
  %t22 = mul nuw nsw i64 %i2, 6
  %t23 = add nuw nsw i64 %t22, %i4
  %t24 = getelementptr inbounds float, ptr %out, i64 %t23
  store float %t21, ptr %t24
  br label %latch5
latch5:
  %i4.next = add nuw nsw i64 %i4, 1
  %t25 = icmp slt i64 %i4.next, 6
  br i1 %t25, label %body4, label %exit6
exit6:
  br label %latch2
latch2:
  %i2.next = add nuw nsw i64 %i2, 1
  %t26 = icmp slt i64 %i2.next, %end
  br i1 %t26, label %body1, label %exit3
exit3:
  ret void
}

define void @k_dynamic_reduce_concat(ptr %args) #0 {
entry:
  %p0 = getelementptr inbounds ptr, ptr %args, i64 0
  %s0 = load ptr, ptr %p0, align 8
  %p1 = getelementptr inbounds ptr, ptr %args, i64 1
  %s1 = load ptr, ptr %p1, align 8
  %p2 = getelementptr inbounds ptr, ptr %args, i64 2
  %s2 = load ptr, ptr %p2, align 8
  %p3 = getelementptr inbounds ptr, ptr %args, i64 3
  %s3 = load ptr, ptr %p3, align 8
  call void @k_dynamic_reduce_concat.g0(ptr %s0, ptr %s1, i64 0, i64 1, i64 61)
  call void @k_dynamic_reduce_concat.g1(ptr %s1, ptr %s2, i64 0, i64 6, i64 61)
  call void @k_dynamic_reduce_concat.g2(ptr %s0, ptr %s3, i64 0, i64 62, i64 61)
  ret void
}

define void @k_dynamic_reduce_concat.range(ptr %args, i64 %group, i64 %start, i64 %end, i64 %size) #0 {
entry:
  %p0 = getelementptr inbounds ptr, ptr %args, i64 0
  %s0 = load ptr, ptr %p0, align 8
  %p1 = getelementptr inbounds ptr, ptr %args, i64 1
  %s1 = load ptr, ptr %p1, align 8
  %p2 = getelementptr inbounds ptr, ptr %args, i64 2
  %s2 = load ptr, ptr %p2, align 8
  %p3 = getelementptr inbounds ptr, ptr %args, i64 3
  %s3 = load ptr, ptr %p3, align 8
  switch i64 %group, label %done [
    i64 0, label %g0
    i64 1, label %g1
    i64 2, label %g2
  ]
g0:
  call void @k_dynamic_reduce_concat.g0(ptr %s0, ptr %s1, i64 %start, i64 %end, i64 %size)
  br label %done
g1:
  call void @k_dynamic_reduce_concat.g1(ptr %s1, ptr %s2, i64 %start, i64 %end, i64 %size)
  br label %done
g2:
  call void @k_dynamic_reduce_concat.g2(ptr %s0, ptr %s3, i64 %start, i64 %end, i64 %size)
  br label %done
done:
  ret void
}


attributes #0 = { nounwind }
attributes #1 = { nounwind noinline "prefer-vector-width"="512" }
