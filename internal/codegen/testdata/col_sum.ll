; gojit module k_col_sum

; group 0 computes %1 = reduce_sum %0 axes=[1] : f32[6,8]
define internal void @k_col_sum.g0(ptr noalias readonly %in0, ptr noalias %out, i64 %start, i64 %end) #1 {
entry:
  %t1 = icmp slt i64 %start, %end
  br i1 %t1, label %body1, label %exit3
body1:
  %i2 = phi i64 [ %start, %entry ], [ %i2.next, %latch2 ]
  %t3 = mul nuw nsw i64 %i2, 8
  %t4 = icmp slt i64 0, 8
  br i1 %t4, label %body4, label %exit6
body4:
  %i5 = phi i64 [ 0, %body1 ], [ %i5.next, %latch5 ]
  %t6 = add nuw nsw i64 %t3, %i5
  %t7 = getelementptr inbounds float, ptr %out, i64 %t6
  store float 0x0000000000000000, ptr %t7
  br label %latch5
latch5:
  %i5.next = add nuw nsw i64 %i5, 1
  %t8 = icmp slt i64 %i5.next, 8
  br i1 %t8, label %body4, label %exit6, !llvm.loop !1
exit6:
  %t9 = icmp slt i64 0, 4
  br i1 %t9, label %body7, label %exit9
body7:
  %i10 = phi i64 [ 0, %exit6 ], [ %i10.next, %latch8 ]
  %t11 = icmp slt i64 0, 8
  br i1 %t11, label %body10, label %exit12
body10:
  %i12 = phi i64 [ 0, %body7 ], [ %i12.next, %latch11 ]
  %t13 = mul nuw nsw i64 %i2, 8
  %t14 = add nuw nsw i64 %t13, %i12
  %t15 = mul nuw nsw i64 %i2, 32
  %t16 = mul nuw nsw i64 %i10, 8
  %t17 = add nuw nsw i64 %t15, %t16
  %t18 = add nuw nsw i64 %t17, %i12
  %t19 = getelementptr inbounds float, ptr %in0, i64 %t18
  %t20 = load float, ptr %t19
  %t21 = getelementptr inbounds float, ptr %out, i64 %t14
  %t22 = load float, ptr %t21
  %t23 = fadd float %t22, %t20
  %t24 = getelementptr inbounds float, ptr %out, i64 %t14
  store float %t23, ptr %t24
  br label %latch11
latch11:
  %i12.next = add nuw nsw i64 %i12, 1
  %t25 = icmp slt i64 %i12.next, 8
  br i1 %t25, label %body10, label %exit12, !llvm.loop !3
exit12:
  br label %latch8
latch8:
  %i10.next = add nuw nsw i64 %i10, 1
  %t26 = icmp slt i64 %i10.next, 4
  br i1 %t26, label %body7, label %exit9, !llvm.loop !5
exit9:
  br label %latch2
latch2:
  %i2.next = add nuw nsw i64 %i2, 1
  %t27 = icmp slt i64 %i2.next, %end
  br i1 %t27, label %body1, label %exit3, !llvm.loop !7
exit3:
  ret void
}

; group 1 computes %2 = reduce_max %0 axes=[0] : f32[4,8]
define internal void @k_col_sum.g1(ptr noalias readonly %in0, ptr noalias %out, i64 %start, i64 %end) #1 {
entry:
  %t1 = icmp slt i64 %start, %end
  br i1 %t1, label %body1, label %exit3
body1:
  %i2 = phi i64 [ %start, %entry ], [ %i2.next, %latch2 ]
  %t3 = icmp slt i64 0, 32
  br i1 %t3, label %body4, label %exit6
body4:
  %i4 = phi i64 [ 0, %body1 ], [ %i4.next, %latch5 ]
  %t5 = add nuw nsw i64 0, %i4
  %t6 = getelementptr inbounds float, ptr %out, i64 %t5
  store float 0xFFF0000000000000, ptr %t6
  br label %latch5
latch5:
  %i4.next = add nuw nsw i64 %i4, 1
  %t7 = icmp slt i64 %i4.next, 32
  br i1 %t7, label %body4, label %exit6, !llvm.loop !9
exit6:
  %t8 = icmp slt i64 0, 6
  br i1 %t8, label %body7, label %exit9
body7:
  %i9 = phi i64 [ 0, %exit6 ], [ %i9.next, %latch8 ]
  %t10 = icmp slt i64 0, 4
  br i1 %t10, label %body10, label %exit12
body10:
  %i11 = phi i64 [ 0, %body7 ], [ %i11.next, %latch11 ]
  %t12 = icmp slt i64 0, 8
  br i1 %t12, label %body13, label %exit15
body13:
  %i13 = phi i64 [ 0, %body10 ], [ %i13.next, %latch14 ]
  %t14 = mul nuw nsw i64 %i11, 8
  %t15 = add nuw nsw i64 %t14, %i13
  %t16 = mul nuw nsw i64 %i9, 32
  %t17 = mul nuw nsw i64 %i11, 8
  %t18 = add nuw nsw i64 %t16, %t17
  %t19 = add nuw nsw i64 %t18, %i13
  %t20 = getelementptr inbounds float, ptr %in0, i64 %t19
  %t21 = load float, ptr %t20
  %t22 = getelementptr inbounds float, ptr %out, i64 %t15
  %t23 = load float, ptr %t22
  %t24 = call float @llvm.maximum.f32(float %t23, float %t21)
  %t25 = getelementptr inbounds float, ptr %out, i64 %t15
  store float %t24, ptr %t25
  br label %latch14
latch14:
  %i13.next = add nuw nsw i64 %i13, 1
  %t26 = icmp slt i64 %i13.next, 8
  br i1 %t26, label %body13, label %exit15, !llvm.loop !11
exit15:
  br label %latch11
latch11:
  %i11.next = add nuw nsw i64 %i11, 1
  %t27 = icmp slt i64 %i11.next, 4
  br i1 %t27, label %body10, label %exit12, !llvm.loop !13
exit12:
  br label %latch8
latch8:
  %i9.next = add nuw nsw i64 %i9, 1
  %t28 = icmp slt i64 %i9.next, 6
  br i1 %t28, label %body7, label %exit9, !llvm.loop !15
exit9:
  br label %latch2
latch2:
  %i2.next = add nuw nsw i64 %i2, 1
  %t29 = icmp slt i64 %i2.next, %end
  br i1 %t29, label %body1, label %exit3, !llvm.loop !17
exit3:
  ret void
}

define void @k_col_sum(ptr %args) #0 {
entry:
  %p0 = getelementptr inbounds ptr, ptr %args, i64 0
  %s0 = load ptr, ptr %p0, align 8
  %p1 = getelementptr inbounds ptr, ptr %args, i64 1
  %s1 = load ptr, ptr %p1, align 8
  %p2 = getelementptr inbounds ptr, ptr %args, i64 2
  %s2 = load ptr, ptr %p2, align 8
  call void @k_col_sum.g0(ptr %s0, ptr %s1, i64 0, i64 6)
  call void @k_col_sum.g1(ptr %s0, ptr %s2, i64 0, i64 1)
  ret void
}

define void @k_col_sum.range(ptr %args, i64 %group, i64 %start, i64 %end, i64 %size) #0 {
entry:
  %p0 = getelementptr inbounds ptr, ptr %args, i64 0
  %s0 = load ptr, ptr %p0, align 8
  %p1 = getelementptr inbounds ptr, ptr %args, i64 1
  %s1 = load ptr, ptr %p1, align 8
  %p2 = getelementptr inbounds ptr, ptr %args, i64 2
  %s2 = load ptr, ptr %p2, align 8
  switch i64 %group, label %done [
    i64 0, label %g0
    i64 1, label %g1
  ]
g0:
  call void @k_col_sum.g0(ptr %s0, ptr %s1, i64 %start, i64 %end)
  br label %done
g1:
  call void @k_col_sum.g1(ptr %s0, ptr %s2, i64 %start, i64 %end)
  br label %done
done:
  ret void
}

declare float @llvm.maximum.f32(float, float)

!0 = !{i32 1}
!1 = distinct !{!1, !2}
!2 = !{!"llvm.loop.unroll.disable"}
!3 = distinct !{!3, !4}
!4 = !{!"llvm.loop.unroll.disable"}
!5 = distinct !{!5, !6}
!6 = !{!"llvm.loop.unroll.disable"}
!7 = distinct !{!7, !8}
!8 = !{!"llvm.loop.unroll.disable"}
!9 = distinct !{!9, !10}
!10 = !{!"llvm.loop.unroll.disable"}
!11 = distinct !{!11, !12}
!12 = !{!"llvm.loop.unroll.disable"}
!13 = distinct !{!13, !14}
!14 = !{!"llvm.loop.unroll.disable"}
!15 = distinct !{!15, !16}
!16 = !{!"llvm.loop.unroll.disable"}
!17 = distinct !{!17, !18}
!18 = !{!"llvm.loop.unroll.disable"}

attributes #0 = { nounwind }
attributes #1 = { nounwind noinline "prefer-vector-width"="512" }
