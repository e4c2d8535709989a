; gojit module k_argmax_int_div

; group 0 computes %3 = argmax %2 axes=[1] : i64[3]
define internal void @k_argmax_int_div.g0(ptr noalias readonly %in0, ptr noalias readonly %in1, ptr noalias %out, i64 %start, i64 %end) #1 {
entry:
  %acc3 = alloca i32
  %acc4 = alloca i64
  %t1 = icmp slt i64 %start, %end
  br i1 %t1, label %body1, label %exit3
body1:
  %i2 = phi i64 [ %start, %entry ], [ %i2.next, %latch2 ]
  store i32 -2147483648, ptr %acc3
  store i64 0, ptr %acc4
  %t5 = icmp slt i64 0, 5
  br i1 %t5, label %body4, label %exit6
body4:
  %i6 = phi i64 [ 0, %body1 ], [ %i6.next, %latch5 ]
  %t7 = mul nuw nsw i64 %i2, 5
  %t8 = add nuw nsw i64 %t7, %i6
  %t9 = getelementptr inbounds i32, ptr %in0, i64 %t8
  %t10 = load i32, ptr %t9
  %t11 = getelementptr inbounds i32, ptr %in1, i64 %t8
  %t12 = load i32, ptr %t11
  %t13 = icmp eq i32 %t12, 0
  %t14 = icmp eq i32 %t12, -1
  %t15 = or i1 %t13, %t14
  %t16 = select i1 %t15, i32 1, i32 %t12
  %t17 = sdiv i32 %t10, %t16
  %t18 = sub i32 0, %t10
  %t19 = select i1 %t14, i32 %t18, i32 %t17
  %t20 = select i1 %t13, i32 0, i32 %t19
  %t21 = load i32, ptr %acc3
  %t22 = icmp sgt i32 %t20, %t21
  %t23 = select i1 %t22, i32 %t20, i32 %t21
  store i32 %t23, ptr %acc3
  %t24 = load i64, ptr %acc4
  %t25 = select i1 %t22, i64 %i6, i64 %t24
  store i64 %t25, ptr %acc4
  br label %latch5
latch5:
  %i6.next = add nuw nsw i64 %i6, 1
  %t26 = icmp slt i64 %i6.next, 5
  br i1 %t26, label %body4, label %exit6, !llvm.loop !1
exit6:
  %t27 = load i64, ptr %acc4
  %t28 = getelementptr inbounds i64, ptr %out, i64 %i2
  store i64 %t27, ptr %t28
  br label %latch2
latch2:
  %i2.next = add nuw nsw i64 %i2, 1
  %t29 = icmp slt i64 %i2.next, %end
  br i1 %t29, label %body1, label %exit3, !llvm.loop !3
exit3:
  ret void
}

define void @k_argmax_int_div(ptr %args) #0 {
entry:
  %p0 = getelementptr inbounds ptr, ptr %args, i64 0
  %s0 = load ptr, ptr %p0, align 8
  %p1 = getelementptr inbounds ptr, ptr %args, i64 1
  %s1 = load ptr, ptr %p1, align 8
  %p2 = getelementptr inbounds ptr, ptr %args, i64 2
  %s2 = load ptr, ptr %p2, align 8
  call void @k_argmax_int_div.g0(ptr %s0, ptr %s1, ptr %s2, i64 0, i64 3)
  ret void
}

define void @k_argmax_int_div.range(ptr %args, i64 %group, i64 %start, i64 %end, i64 %size) #0 {
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
  call void @k_argmax_int_div.g0(ptr %s0, ptr %s1, ptr %s2, i64 %start, i64 %end)
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
