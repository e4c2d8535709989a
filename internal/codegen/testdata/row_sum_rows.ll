; gojit module k_row_sum_rows

; group 0 computes %4 = reduce_sum %3 axes=[2] : f32[2,3]
define internal void @k_row_sum_rows.g0(ptr noalias readonly %in0, ptr noalias readonly %in1, ptr noalias %out, i64 %start, i64 %end) #1 {
entry:
  %acc13 = alloca float
  %acc14 = alloca float
  %acc15 = alloca float
  %acc16 = alloca float
  %acc78 = alloca float
  %t1 = mul nuw nsw i64 %start, 3
  %t2 = mul nuw nsw i64 %end, 3
  %t3 = sub nuw nsw i64 %t2, %t1
  %t4 = udiv i64 %t3, 4
  %t5 = icmp slt i64 0, %t4
  br i1 %t5, label %body1, label %exit3
body1:
  %i6 = phi i64 [ 0, %entry ], [ %i6.next, %latch2 ]
  %t7 = mul nuw nsw i64 %i6, 4
  %t8 = add nuw nsw i64 %t1, %t7
  %t9 = add nuw nsw i64 %t8, 0
  %t10 = add nuw nsw i64 %t8, 1
  %t11 = add nuw nsw i64 %t8, 2
  %t12 = add nuw nsw i64 %t8, 3
  store float 0x0000000000000000, ptr %acc13
  store float 0x0000000000000000, ptr %acc14
  store float 0x0000000000000000, ptr %acc15
  store float 0x0000000000000000, ptr %acc16
  %t17 = udiv i64 %t9, 3
  %t18 = urem i64 %t9, 3
  %t19 = mul nuw nsw i64 %t9, 300
  %t20 = udiv i64 %t10, 3
  %t21 = urem i64 %t10, 3
  %t22 = mul nuw nsw i64 %t10, 300
  %t23 = udiv i64 %t11, 3
  %t24 = urem i64 %t11, 3
  %t25 = mul nuw nsw i64 %t11, 300
  %t26 = udiv i64 %t12, 3
  %t27 = urem i64 %t12, 3
  %t28 = mul nuw nsw i64 %t12, 300
  %t30 = icmp slt i64 0, 300
  br i1 %t30, label %body4, label %exit6
body4:
  %i31 = phi i64 [ 0, %body1 ], [ %i31.next, %latch5 ]
  %t32 = add nuw nsw i64 %t19, %i31
  %t33 = getelementptr inbounds float, ptr %in0, i64 %t32
  %t34 = load float, ptr %t33
  %t35 = getelementptr inbounds float, ptr %in1, i64 %i31
  %t36 = load float, ptr %t35
  %t37 = fmul float %t34, %t36
  %t38 = load float, ptr %acc13
  %t39 = fadd reassoc float %t38, %t37
  store float %t39, ptr %acc13
  %t40 = add nuw nsw i64 %t22, %i31
  %t41 = getelementptr inbounds float, ptr %in0, i64 %t40
  %t42 = load float, ptr %t41
  %t43 = getelementptr inbounds float, ptr %in1, i64 %i31
  %t44 = load float, ptr %t43
  %t45 = fmul float %t42, %t44
  %t46 = load float, ptr %acc14
  %t47 = fadd reassoc float %t46, %t45
  store float %t47, ptr %acc14
  %t48 = add nuw nsw i64 %t25, %i31
  %t49 = getelementptr inbounds float, ptr %in0, i64 %t48
  %t50 = load float, ptr %t49
  %t51 = getelementptr inbounds float, ptr %in1, i64 %i31
  %t52 = load float, ptr %t51
  %t53 = fmul float %t50, %t52
  %t54 = load float, ptr %acc15
  %t55 = fadd reassoc float %t54, %t53
  store float %t55, ptr %acc15
  %t56 = add nuw nsw i64 %t28, %i31
  %t57 = getelementptr inbounds float, ptr %in0, i64 %t56
  %t58 = load float, ptr %t57
  %t59 = getelementptr inbounds float, ptr %in1, i64 %i31
  %t60 = load float, ptr %t59
  %t61 = fmul float %t58, %t60
  %t62 = load float, ptr %acc16
  %t63 = fadd reassoc float %t62, %t61
  store float %t63, ptr %acc16
  br label %latch5
latch5:
  %i31.next = add nuw nsw i64 %i31, 1
  %t64 = icmp slt i64 %i31.next, 300
  br i1 %t64, label %body4, label %exit6, !llvm.loop !1
exit6:
  %t65 = load float, ptr %acc13
  %t66 = getelementptr inbounds float, ptr %out, i64 %t9
  store float %t65, ptr %t66
  %t67 = load float, ptr %acc14
  %t68 = getelementptr inbounds float, ptr %out, i64 %t10
  store float %t67, ptr %t68
  %t69 = load float, ptr %acc15
  %t70 = getelementptr inbounds float, ptr %out, i64 %t11
  store float %t69, ptr %t70
  %t71 = load float, ptr %acc16
  %t72 = getelementptr inbounds float, ptr %out, i64 %t12
  store float %t71, ptr %t72
  br label %latch2
latch2:
  %i6.next = add nuw nsw i64 %i6, 1
  %t73 = icmp slt i64 %i6.next, %t4
  br i1 %t73, label %body1, label %exit3, !llvm.loop !3
exit3:
  %t74 = mul nuw nsw i64 %t4, 4
  %t75 = add nuw nsw i64 %t1, %t74
  %t76 = icmp slt i64 %t75, %t2
  br i1 %t76, label %body7, label %exit9
body7:
  %i77 = phi i64 [ %t75, %exit3 ], [ %i77.next, %latch8 ]
  store float 0x0000000000000000, ptr %acc78
  %t79 = udiv i64 %i77, 3
  %t80 = urem i64 %i77, 3
  %t81 = mul nuw nsw i64 %i77, 300
  %t83 = icmp slt i64 0, 300
  br i1 %t83, label %body10, label %exit12
body10:
  %i84 = phi i64 [ 0, %body7 ], [ %i84.next, %latch11 ]
  %t85 = add nuw nsw i64 %t81, %i84
  %t86 = getelementptr inbounds float, ptr %in0, i64 %t85
  %t87 = load float, ptr %t86
  %t88 = getelementptr inbounds float, ptr %in1, i64 %i84
  %t89 = load float, ptr %t88
  %t90 = fmul float %t87, %t89
  %t91 = load float, ptr %acc78
  %t92 = fadd reassoc float %t91, %t90
  store float %t92, ptr %acc78
  br label %latch11
latch11:
  %i84.next = add nuw nsw i64 %i84, 1
  %t93 = icmp slt i64 %i84.next, 300
  br i1 %t93, label %body10, label %exit12, !llvm.loop !5
exit12:
  %t94 = load float, ptr %acc78
  %t95 = getelementptr inbounds float, ptr %out, i64 %i77
  store float %t94, ptr %t95
  br label %latch8
latch8:
  %i77.next = add nuw nsw i64 %i77, 1
  %t96 = icmp slt i64 %i77.next, %t2
  br i1 %t96, label %body7, label %exit9, !llvm.loop !7
exit9:
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
!1 = distinct !{!1, !2}
!2 = !{!"llvm.loop.interleave.count", i32 2}
!3 = distinct !{!3, !4}
!4 = !{!"llvm.loop.unroll.disable"}
!5 = distinct !{!5, !6}
!6 = !{!"llvm.loop.unroll.disable"}
!7 = distinct !{!7, !8}
!8 = !{!"llvm.loop.unroll.disable"}

attributes #0 = { nounwind }
attributes #1 = { nounwind noinline "prefer-vector-width"="512" }
