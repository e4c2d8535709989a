; gojit module k_layout

; group 0 computes %6 = add %4, %5 : f64[8]
define internal void @k_layout.g0(ptr noalias readonly %in0, ptr noalias %out, i64 %start, i64 %end) #1 {
entry:
  %t1 = icmp slt i64 %start, %end
  br i1 %t1, label %body1, label %exit3
body1:
  %i2 = phi i64 [ %start, %entry ], [ %i2.next, %latch2 ]
  %t3 = udiv i64 %i2, 2
  %t4 = icmp sgt i64 %t3, 1
  %t5 = select i1 %t4, i64 1, i64 %t3
  %t6 = urem i64 %i2, 2
  %t7 = add nuw nsw i64 %t5, 1
  %t8 = mul nuw nsw i64 %t6, 3
  %t9 = add nuw nsw i64 %t8, %t7
  %t10 = getelementptr inbounds double, ptr %in0, i64 %t9
  %t11 = load double, ptr %t10
  %t12 = sub i64 %t3, 2
  %t13 = icmp slt i64 %t12, 0
  %t14 = select i1 %t13, i64 0, i64 %t12
  %t15 = icmp sgt i64 %t14, 1
  %t16 = select i1 %t15, i64 1, i64 %t14
  %t17 = add nuw nsw i64 %t16, 1
  %t18 = mul nuw nsw i64 %t6, 3
  %t19 = add nuw nsw i64 %t18, %t17
  %t20 = getelementptr inbounds double, ptr %in0, i64 %t19
  %t21 = load double, ptr %t20
  %t22 = icmp slt i64 %t3, 2
  %t23 = select i1 %t22, double %t11, double %t21
  %t24 = sitofp i64 %i2 to double
  %t25 = fadd double %t23, %t24
  %t26 = getelementptr inbounds double, ptr %out, i64 %i2
  store double %t25, ptr %t26
  br label %latch2
latch2:
  %i2.next = add nuw nsw i64 %i2, 1
  %t27 = icmp slt i64 %i2.next, %end
  br i1 %t27, label %body1, label %exit3, !llvm.loop !1
exit3:
  ret void
}

define void @k_layout(ptr %args) #0 {
entry:
  %p0 = getelementptr inbounds ptr, ptr %args, i64 0
  %s0 = load ptr, ptr %p0, align 8
  %p1 = getelementptr inbounds ptr, ptr %args, i64 1
  %s1 = load ptr, ptr %p1, align 8
  call void @k_layout.g0(ptr %s0, ptr %s1, i64 0, i64 8)
  ret void
}

define void @k_layout.range(ptr %args, i64 %group, i64 %start, i64 %end, i64 %size) #0 {
entry:
  %p0 = getelementptr inbounds ptr, ptr %args, i64 0
  %s0 = load ptr, ptr %p0, align 8
  %p1 = getelementptr inbounds ptr, ptr %args, i64 1
  %s1 = load ptr, ptr %p1, align 8
  switch i64 %group, label %done [
    i64 0, label %g0
  ]
g0:
  call void @k_layout.g0(ptr %s0, ptr %s1, i64 %start, i64 %end)
  br label %done
done:
  ret void
}


!0 = !{i32 1}
!1 = distinct !{!1, !2}
!2 = !{!"llvm.loop.unroll.disable"}

attributes #0 = { nounwind }
attributes #1 = { nounwind noinline "prefer-vector-width"="512" }
