; gojit module k_dynamic_slice

; group 0 computes %3 = dynamic_slice %0, %1, %2 : u8[3,4]
define internal void @k_dynamic_slice.g0(ptr noalias readonly %in1, ptr noalias readonly %in2, ptr noalias readonly %in0, ptr noalias %out, i64 %start, i64 %end) #1 {
entry:
  %t1 = icmp slt i64 %start, %end
  br i1 %t1, label %body1, label %exit3
body1:
  %i2 = phi i64 [ %start, %entry ], [ %i2.next, %latch2 ]
  %t3 = icmp slt i64 0, 4
  br i1 %t3, label %body4, label %exit6
body4:
  %i4 = phi i64 [ 0, %body1 ], [ %i4.next, %latch5 ]
  %t5 = getelementptr inbounds i32, ptr %in1, i64 0
  %t6 = load i32, ptr %t5
  %t7 = sext i32 %t6 to i64
  %t8 = sub i64 8, 3
  %t9 = icmp sgt i64 %t7, %t8
  %t10 = select i1 %t9, i64 %t8, i64 %t7
  %t11 = icmp slt i64 %t10, 0
  %t12 = select i1 %t11, i64 0, i64 %t10
  %t13 = add i64 %i2, %t12
  %t14 = getelementptr inbounds i64, ptr %in2, i64 0
  %t15 = load i64, ptr %t14
  %t16 = sub i64 8, 4
  %t17 = icmp sgt i64 %t15, %t16
  %t18 = select i1 %t17, i64 %t16, i64 %t15
  %t19 = icmp slt i64 %t18, 0
  %t20 = select i1 %t19, i64 0, i64 %t18
  %t21 = add i64 %i4, %t20
  %t22 = mul nuw nsw i64 %t13, 8
  %t23 = add nuw nsw i64 %t22, %t21
  %t24 = getelementptr inbounds i8, ptr %in0, i64 %t23
  %t25 = load i8, ptr %t24
  %t26 = mul nuw nsw i64 %i2, 4
  %t27 = add nuw nsw i64 %t26, %i4
  %t28 = getelementptr inbounds i8, ptr %out, i64 %t27
  store i8 %t25, ptr %t28
  br label %latch5
latch5:
  %i4.next = add nuw nsw i64 %i4, 1
  %t29 = icmp slt i64 %i4.next, 4
  br i1 %t29, label %body4, label %exit6, !llvm.loop !1
exit6:
  br label %latch2
latch2:
  %i2.next = add nuw nsw i64 %i2, 1
  %t30 = icmp slt i64 %i2.next, %end
  br i1 %t30, label %body1, label %exit3, !llvm.loop !3
exit3:
  ret void
}

define void @k_dynamic_slice(ptr %args) #0 {
entry:
  %p0 = getelementptr inbounds ptr, ptr %args, i64 0
  %s0 = load ptr, ptr %p0, align 8
  %p1 = getelementptr inbounds ptr, ptr %args, i64 1
  %s1 = load ptr, ptr %p1, align 8
  %p2 = getelementptr inbounds ptr, ptr %args, i64 2
  %s2 = load ptr, ptr %p2, align 8
  %p3 = getelementptr inbounds ptr, ptr %args, i64 3
  %s3 = load ptr, ptr %p3, align 8
  call void @k_dynamic_slice.g0(ptr %s1, ptr %s2, ptr %s0, ptr %s3, i64 0, i64 3)
  ret void
}

define void @k_dynamic_slice.range(ptr %args, i64 %group, i64 %start, i64 %end, i64 %size) #0 {
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
  ]
g0:
  call void @k_dynamic_slice.g0(ptr %s1, ptr %s2, ptr %s0, ptr %s3, i64 %start, i64 %end)
  br label %done
done:
  ret void
}


!0 = !{i32 1}
!1 = distinct !{!1, !2}
!2 = !{!"llvm.loop.unroll.disable"}
!3 = distinct !{!3, !4}
!4 = !{!"llvm.loop.unroll.disable"}

attributes #0 = { nounwind }
attributes #1 = { nounwind noinline "prefer-vector-width"="512" }
