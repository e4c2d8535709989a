; gojit module k_matmul_cast

; group 0 computes %2 = matmul %0, %1 : f32[2,3,5]
define internal void @k_matmul_cast.g0(ptr noalias readonly %in0, ptr noalias readonly %in1, ptr noalias %out, i64 %start, i64 %end) #1 {
entry:
  %t1 = icmp slt i64 %start, %end
  br i1 %t1, label %body1, label %exit3
body1:
  %i2 = phi i64 [ %start, %entry ], [ %i2.next, %latch2 ]
  %t3 = mul nuw nsw i64 %i2, 12
  %t4 = mul nuw nsw i64 %i2, 20
  %t5 = mul nuw nsw i64 %i2, 15
  %t6 = mul nuw nsw i64 0, 0
  %t7 = udiv i64 %t6, 1
  %t8 = mul nuw nsw i64 %t7, 12
  %t9 = icmp eq i64 0, 0
  %t10 = add nuw nsw i64 0, 1
  %t11 = mul nuw nsw i64 %t10, 0
  %t12 = udiv i64 %t11, 1
  %t13 = mul nuw nsw i64 %t12, 12
  %t14 = select i1 %t9, i64 3, i64 %t13
  %t15 = sub nuw nsw i64 %t14, %t8
  %t16 = udiv i64 %t15, 12
  %t17 = mul nuw nsw i64 %t16, 12
  %t18 = icmp slt i64 0, %t15
  br i1 %t18, label %body4, label %exit6
body4:
  %i19 = phi i64 [ 0, %body1 ], [ %i19.next, %latch5 ]
  %t20 = add nuw nsw i64 %t8, %i19
  %t21 = mul nuw nsw i64 %t20, 5
  %t22 = add nuw nsw i64 %t5, %t21
  %t23 = mul nuw nsw i64 %t20, 4
  %t24 = add nuw nsw i64 %t3, %t23
  %t25 = icmp slt i64 0, 5
  br i1 %t25, label %body7, label %exit9
body7:
  %i26 = phi i64 [ 0, %body4 ], [ %i26.next, %latch8 ]
  %t27 = add nuw nsw i64 %t22, %i26
  %t28 = getelementptr inbounds float, ptr %out, i64 %t27
  store float 0x0000000000000000, ptr %t28
  br label %latch8
latch8:
  %i26.next = add nuw nsw i64 %i26, 1
  %t29 = icmp slt i64 %i26.next, 5
  br i1 %t29, label %body7, label %exit9
exit9:
  %t30 = icmp slt i64 0, 4
  br i1 %t30, label %body10, label %exit12
body10:
  %i31 = phi i64 [ 0, %exit9 ], [ %i31.next, %latch11 ]
  %t32 = add nuw nsw i64 %t24, %i31
  %t33 = getelementptr inbounds float, ptr %in0, i64 %t32
  %t34 = load float, ptr %t33
  %t35 = mul nuw nsw i64 %i31, 5
  %t36 = add nuw nsw i64 %t4, %t35
  %t37 = icmp slt i64 0, 5
  br i1 %t37, label %body13, label %exit15
body13:
  %i38 = phi i64 [ 0, %body10 ], [ %i38.next, %latch14 ]
  %t39 = add nuw nsw i64 %t22, %i38
  %t40 = getelementptr inbounds float, ptr %out, i64 %t39
  %t41 = load float, ptr %t40
  %t42 = add nuw nsw i64 %t36, %i38
  %t43 = getelementptr inbounds float, ptr %in1, i64 %t42
  %t44 = load float, ptr %t43
  %t45 = call float @llvm.fmuladd.f32(float %t34, float %t44, float %t41)
  %t46 = getelementptr inbounds float, ptr %out, i64 %t39
  store float %t45, ptr %t46
  br label %latch14
latch14:
  %i38.next = add nuw nsw i64 %i38, 1
  %t47 = icmp slt i64 %i38.next, 5
  br i1 %t47, label %body13, label %exit15, !llvm.loop !1
exit15:
  br label %latch11
latch11:
  %i31.next = add nuw nsw i64 %i31, 1
  %t48 = icmp slt i64 %i31.next, 4
  br i1 %t48, label %body10, label %exit12
exit12:
  br label %latch5
latch5:
  %i19.next = add nuw nsw i64 %i19, 1
  %t49 = icmp slt i64 %i19.next, %t15
  br i1 %t49, label %body4, label %exit6, !llvm.loop !3
exit6:
  br label %latch2
latch2:
  %i2.next = add nuw nsw i64 %i2, 1
  %t50 = icmp slt i64 %i2.next, %end
  br i1 %t50, label %body1, label %exit3, !llvm.loop !6
exit3:
  ret void
}

; group 1 computes %3 = cast %2 : u8[2,3,5]
define internal void @k_matmul_cast.g1(ptr noalias readonly %in2, ptr noalias %out, i64 %start, i64 %end) #1 {
entry:
  %t1 = icmp slt i64 %start, %end
  br i1 %t1, label %body1, label %exit3
body1:
  %i2 = phi i64 [ %start, %entry ], [ %i2.next, %latch2 ]
  %t3 = getelementptr inbounds float, ptr %in2, i64 %i2
  %t4 = load float, ptr %t3
  %t5 = call float @llvm.maxnum.f32(float %t4, float 0x0000000000000000)
  %t6 = call float @llvm.minnum.f32(float %t5, float 0x406FE00000000000)
  %t7 = fptosi float %t6 to i32
  %t8 = trunc i32 %t7 to i8
  %t9 = getelementptr inbounds i8, ptr %out, i64 %i2
  store i8 %t8, ptr %t9
  br label %latch2
latch2:
  %i2.next = add nuw nsw i64 %i2, 1
  %t10 = icmp slt i64 %i2.next, %end
  br i1 %t10, label %body1, label %exit3, !llvm.loop !9
exit3:
  ret void
}

; group 2 computes %6 = where %4, %2, %5 : f32[2,3,5]
define internal void @k_matmul_cast.g2(ptr noalias readonly %in4, ptr noalias readonly %in2, ptr noalias %out, i64 %start, i64 %end) #1 {
entry:
  %t1 = icmp slt i64 %start, %end
  br i1 %t1, label %body1, label %exit3
body1:
  %i2 = phi i64 [ %start, %entry ], [ %i2.next, %latch2 ]
  %t3 = getelementptr inbounds i8, ptr %in4, i64 %i2
  %t4 = load i8, ptr %t3
  %t5 = icmp ne i8 %t4, 0
  %t6 = getelementptr inbounds float, ptr %in2, i64 %i2
  %t7 = load float, ptr %t6
  %t8 = uitofp i1 %t5 to float
  %t9 = select i1 %t5, float %t7, float %t8
  %t10 = getelementptr inbounds float, ptr %out, i64 %i2
  store float %t9, ptr %t10
  br label %latch2
latch2:
  %i2.next = add nuw nsw i64 %i2, 1
  %t11 = icmp slt i64 %i2.next, %end
  br i1 %t11, label %body1, label %exit3, !llvm.loop !11
exit3:
  ret void
}

define void @k_matmul_cast(ptr %args) #0 {
entry:
  %p0 = getelementptr inbounds ptr, ptr %args, i64 0
  %s0 = load ptr, ptr %p0, align 8
  %p1 = getelementptr inbounds ptr, ptr %args, i64 1
  %s1 = load ptr, ptr %p1, align 8
  %p2 = getelementptr inbounds ptr, ptr %args, i64 2
  %s2 = load ptr, ptr %p2, align 8
  %p3 = getelementptr inbounds ptr, ptr %args, i64 3
  %s3 = load ptr, ptr %p3, align 8
  %p4 = getelementptr inbounds ptr, ptr %args, i64 4
  %s4 = load ptr, ptr %p4, align 8
  %p5 = getelementptr inbounds ptr, ptr %args, i64 5
  %s5 = load ptr, ptr %p5, align 8
  call void @k_matmul_cast.g0(ptr %s0, ptr %s1, ptr %s3, i64 0, i64 2)
  call void @k_matmul_cast.g1(ptr %s3, ptr %s4, i64 0, i64 30)
  call void @k_matmul_cast.g2(ptr %s2, ptr %s3, ptr %s5, i64 0, i64 30)
  ret void
}

define void @k_matmul_cast.range(ptr %args, i64 %group, i64 %start, i64 %end, i64 %size) #0 {
entry:
  %p0 = getelementptr inbounds ptr, ptr %args, i64 0
  %s0 = load ptr, ptr %p0, align 8
  %p1 = getelementptr inbounds ptr, ptr %args, i64 1
  %s1 = load ptr, ptr %p1, align 8
  %p2 = getelementptr inbounds ptr, ptr %args, i64 2
  %s2 = load ptr, ptr %p2, align 8
  %p3 = getelementptr inbounds ptr, ptr %args, i64 3
  %s3 = load ptr, ptr %p3, align 8
  %p4 = getelementptr inbounds ptr, ptr %args, i64 4
  %s4 = load ptr, ptr %p4, align 8
  %p5 = getelementptr inbounds ptr, ptr %args, i64 5
  %s5 = load ptr, ptr %p5, align 8
  switch i64 %group, label %done [
    i64 0, label %g0
    i64 1, label %g1
    i64 2, label %g2
  ]
g0:
  call void @k_matmul_cast.g0(ptr %s0, ptr %s1, ptr %s3, i64 %start, i64 %end)
  br label %done
g1:
  call void @k_matmul_cast.g1(ptr %s3, ptr %s4, i64 %start, i64 %end)
  br label %done
g2:
  call void @k_matmul_cast.g2(ptr %s2, ptr %s3, ptr %s5, i64 %start, i64 %end)
  br label %done
done:
  ret void
}

declare float @llvm.fmuladd.f32(float, float, float)
declare float @llvm.maxnum.f32(float, float)
declare float @llvm.minnum.f32(float, float)

!0 = !{i32 1}
!1 = distinct !{!1, !2}
!2 = !{!"llvm.loop.unroll.disable"}
!3 = distinct !{!3, !4, !5} ; done
!4 = !{!"llvm.loop.vectorize.enable", i1 false}
!5 = !{!"llvm.loop.unroll.disable"}
!6 = distinct !{!6, !7, !8} ; done
!7 = !{!"llvm.loop.vectorize.enable", i1 false}
!8 = !{!"llvm.loop.unroll.disable"}
!9 = distinct !{!9, !10}
!10 = !{!"llvm.loop.unroll.disable"}
!11 = distinct !{!11, !12}
!12 = !{!"llvm.loop.unroll.disable"}

attributes #0 = { nounwind }
attributes #1 = { nounwind noinline "prefer-vector-width"="512" }
