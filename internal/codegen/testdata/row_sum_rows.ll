; gojit module k_row_sum_rows

; group 0 computes %4 = reduce_sum %3 axes=[2] : f32[2,3]
define internal void @k_row_sum_rows.g0(ptr noalias readonly %in0, ptr noalias readonly %in1, ptr noalias %out, i64 %start, i64 %end) #1 {
entry:
  %acc20 = alloca float
  %acc21 = alloca float
  %acc22 = alloca float
  %acc23 = alloca float
  %t1 = mul nuw nsw i64 %start, 3
  %t2 = mul nuw nsw i64 %end, 3
  %t3 = sub nuw nsw i64 %t2, %t1
  %t4 = add nuw nsw i64 %t3, 3
  %t5 = udiv i64 %t4, 4
  %t6 = sub nuw nsw i64 %t2, 1
  %t7 = icmp slt i64 0, %t5
  br i1 %t7, label %body1, label %exit3
body1:
  %i8 = phi i64 [ 0, %entry ], [ %i8.next, %latch2 ]
  %t9 = mul nuw nsw i64 %i8, 4
  %t10 = add nuw nsw i64 %t1, %t9
  %t11 = add nuw nsw i64 %t10, 1
  %t12 = icmp ugt i64 %t11, %t6
  %t13 = select i1 %t12, i64 %t6, i64 %t11
  %t14 = add nuw nsw i64 %t10, 2
  %t15 = icmp ugt i64 %t14, %t6
  %t16 = select i1 %t15, i64 %t6, i64 %t14
  %t17 = add nuw nsw i64 %t10, 3
  %t18 = icmp ugt i64 %t17, %t6
  %t19 = select i1 %t18, i64 %t6, i64 %t17
  store float 0x0000000000000000, ptr %acc20
  store float 0x0000000000000000, ptr %acc21
  store float 0x0000000000000000, ptr %acc22
  store float 0x0000000000000000, ptr %acc23
  %t24 = udiv i64 %t10, 3
  %t25 = urem i64 %t10, 3
  %t26 = mul nuw nsw i64 %t10, 300
  %t27 = udiv i64 %t13, 3
  %t28 = urem i64 %t13, 3
  %t29 = mul nuw nsw i64 %t13, 300
  %t30 = udiv i64 %t16, 3
  %t31 = urem i64 %t16, 3
  %t32 = mul nuw nsw i64 %t16, 300
  %t33 = udiv i64 %t19, 3
  %t34 = urem i64 %t19, 3
  %t35 = mul nuw nsw i64 %t19, 300
  %t37 = icmp slt i64 0, 300
  br i1 %t37, label %body4, label %exit6
body4:
  %i38 = phi i64 [ 0, %body1 ], [ %i38.next, %latch5 ]
  %t39 = add nuw nsw i64 %t26, %i38
  %t40 = getelementptr inbounds float, ptr %in0, i64 %t39
  %t41 = load float, ptr %t40
  %t42 = getelementptr inbounds float, ptr %in1, i64 %i38
  %t43 = load float, ptr %t42
  %t44 = fmul float %t41, %t43
  %t45 = load float, ptr %acc20
  %t46 = fadd reassoc float %t45, %t44
  store float %t46, ptr %acc20
  %t47 = add nuw nsw i64 %t29, %i38
  %t48 = getelementptr inbounds float, ptr %in0, i64 %t47
  %t49 = load float, ptr %t48
  %t50 = getelementptr inbounds float, ptr %in1, i64 %i38
  %t51 = load float, ptr %t50
  %t52 = fmul float %t49, %t51
  %t53 = load float, ptr %acc21
  %t54 = fadd reassoc float %t53, %t52
  store float %t54, ptr %acc21
  %t55 = add nuw nsw i64 %t32, %i38
  %t56 = getelementptr inbounds float, ptr %in0, i64 %t55
  %t57 = load float, ptr %t56
  %t58 = getelementptr inbounds float, ptr %in1, i64 %i38
  %t59 = load float, ptr %t58
  %t60 = fmul float %t57, %t59
  %t61 = load float, ptr %acc22
  %t62 = fadd reassoc float %t61, %t60
  store float %t62, ptr %acc22
  %t63 = add nuw nsw i64 %t35, %i38
  %t64 = getelementptr inbounds float, ptr %in0, i64 %t63
  %t65 = load float, ptr %t64
  %t66 = getelementptr inbounds float, ptr %in1, i64 %i38
  %t67 = load float, ptr %t66
  %t68 = fmul float %t65, %t67
  %t69 = load float, ptr %acc23
  %t70 = fadd reassoc float %t69, %t68
  store float %t70, ptr %acc23
  br label %latch5
latch5:
  %i38.next = add nuw nsw i64 %i38, 1
  %t71 = icmp slt i64 %i38.next, 300
  br i1 %t71, label %body4, label %exit6, !llvm.loop !1
exit6:
  %t72 = load float, ptr %acc20
  %t73 = getelementptr inbounds float, ptr %out, i64 %t10
  store float %t72, ptr %t73
  %t74 = load float, ptr %acc21
  %t75 = getelementptr inbounds float, ptr %out, i64 %t13
  store float %t74, ptr %t75
  %t76 = load float, ptr %acc22
  %t77 = getelementptr inbounds float, ptr %out, i64 %t16
  store float %t76, ptr %t77
  %t78 = load float, ptr %acc23
  %t79 = getelementptr inbounds float, ptr %out, i64 %t19
  store float %t78, ptr %t79
  br label %latch2
latch2:
  %i8.next = add nuw nsw i64 %i8, 1
  %t80 = icmp slt i64 %i8.next, %t5
  br i1 %t80, label %body1, label %exit3, !llvm.loop !4
exit3:
  ret void
}

define void @k_row_sum_rows(ptr %args) #0 {
entry:
  %p0 = getelementptr inbounds ptr, ptr %args, i64 0
  %s0 = load ptr, ptr %p0, align 8
  %p1 = getelementptr inbounds ptr, ptr %args, i64 1
  %s1 = load ptr, ptr %p1, align 8
  %p2 = getelementptr inbounds ptr, ptr %args, i64 2
  %s2 = load ptr, ptr %p2, align 8
  call void @k_row_sum_rows.g0(ptr %s0, ptr %s1, ptr %s2, i64 0, i64 2)
  ret void
}

define void @k_row_sum_rows.range(ptr %args, i64 %group, i64 %start, i64 %end, i64 %size) #0 {
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
  call void @k_row_sum_rows.g0(ptr %s0, ptr %s1, ptr %s2, i64 %start, i64 %end)
  br label %done
done:
  ret void
}


!0 = !{i32 1}
!1 = distinct !{!1, !2, !3}
!2 = !{!"llvm.loop.interleave.count", i32 2}
!3 = !{!"llvm.loop.unroll.disable"}
!4 = distinct !{!4, !5}
!5 = !{!"llvm.loop.unroll.disable"}

attributes #0 = { nounwind }
attributes #1 = { nounwind noinline "prefer-vector-width"="512" }
