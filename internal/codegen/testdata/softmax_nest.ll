; gojit module k_softmax_nest

; group 0 computes %1 = reduce_max %0 axes=[1] : f32[16]
; group 1 computes %5 = exp %4 : f32[16,8]
; group 2 computes %6 = reduce_sum %5 axes=[1] : f32[16]
; group 3 computes %9 = div %5, %8 : f32[16,8]
define internal void @k_softmax_nest.g0(ptr noalias readonly %in0, ptr noalias %out9, i64 %start, i64 %end) #1 {
entry:
  %row3 = alloca float, i64 1, align 64
  %row5 = alloca float, i64 8, align 64
  %row7 = alloca float, i64 1, align 64
  %acc9 = alloca float
  %acc36 = alloca float
  %t1 = icmp slt i64 %start, %end
  br i1 %t1, label %body1, label %exit3
body1:
  %i2 = phi i64 [ %start, %entry ], [ %i2.next, %latch2 ]
  %t4 = mul nuw nsw i64 %i2, 1
  %t6 = mul nuw nsw i64 %i2, 8
  %t8 = mul nuw nsw i64 %i2, 1
  store float 0xFFF0000000000000, ptr %acc9
  %t10 = icmp slt i64 0, 8
  br i1 %t10, label %body4, label %exit6
body4:
  %i11 = phi i64 [ 0, %body1 ], [ %i11.next, %latch5 ]
  %t12 = mul nuw nsw i64 %i2, 8
  %t13 = add nuw nsw i64 %t12, %i11
  %t14 = getelementptr inbounds float, ptr %in0, i64 %t13
  %t15 = load float, ptr %t14
  %t16 = load float, ptr %acc9
  %t17 = call float @llvm.maximum.f32(float %t16, float %t15)
  store float %t17, ptr %acc9
  br label %latch5
latch5:
  %i11.next = add nuw nsw i64 %i11, 1
  %t18 = icmp slt i64 %i11.next, 8
  br i1 %t18, label %body4, label %exit6, !llvm.loop !1
exit6:
  %t19 = load float, ptr %acc9
  %t20 = sub nuw nsw i64 %i2, %t4
  %t21 = getelementptr inbounds float, ptr %row3, i64 %t20
  store float %t19, ptr %t21
  %t22 = icmp slt i64 0, 8
  br i1 %t22, label %body7, label %exit9
body7:
  %i23 = phi i64 [ 0, %exit6 ], [ %i23.next, %latch8 ]
  %t24 = mul nuw nsw i64 %i2, 8
  %t25 = add nuw nsw i64 %t24, %i23
  %t26 = getelementptr inbounds float, ptr %in0, i64 %t25
  %t27 = load float, ptr %t26
  %t28 = sub nuw nsw i64 %i2, %t4
  %t29 = getelementptr inbounds float, ptr %row3, i64 %t28
  %t30 = load float, ptr %t29
  %t31 = fsub float %t27, %t30
  %t32 = call float @gojit.expf(float %t31)
  %t33 = sub nuw nsw i64 %t25, %t6
  %t34 = getelementptr inbounds float, ptr %row5, i64 %t33
  store float %t32, ptr %t34
  br label %latch8
latch8:
  %i23.next = add nuw nsw i64 %i23, 1
  %t35 = icmp slt i64 %i23.next, 8
  br i1 %t35, label %body7, label %exit9, !llvm.loop !3
exit9:
  store float 0x0000000000000000, ptr %acc36
  %t37 = icmp slt i64 0, 8
  br i1 %t37, label %body10, label %exit12
body10:
  %i38 = phi i64 [ 0, %exit9 ], [ %i38.next, %latch11 ]
  %t39 = mul nuw nsw i64 %i2, 8
  %t40 = add nuw nsw i64 %t39, %i38
  %t41 = sub nuw nsw i64 %t40, %t6
  %t42 = getelementptr inbounds float, ptr %row5, i64 %t41
  %t43 = load float, ptr %t42
  %t44 = load float, ptr %acc36
  %t45 = fadd reassoc float %t44, %t43
  store float %t45, ptr %acc36
  br label %latch11
latch11:
  %i38.next = add nuw nsw i64 %i38, 1
  %t46 = icmp slt i64 %i38.next, 8
  br i1 %t46, label %body10, label %exit12, !llvm.loop !6
exit12:
  %t47 = load float, ptr %acc36
  %t48 = sub nuw nsw i64 %i2, %t8
  %t49 = getelementptr inbounds float, ptr %row7, i64 %t48
  store float %t47, ptr %t49
  %t50 = icmp slt i64 0, 8
  br i1 %t50, label %body13, label %exit15
body13:
  %i51 = phi i64 [ 0, %exit12 ], [ %i51.next, %latch14 ]
  %t52 = mul nuw nsw i64 %i2, 8
  %t53 = add nuw nsw i64 %t52, %i51
  %t54 = sub nuw nsw i64 %t53, %t6
  %t55 = getelementptr inbounds float, ptr %row5, i64 %t54
  %t56 = load float, ptr %t55
  %t57 = sub nuw nsw i64 %i2, %t8
  %t58 = getelementptr inbounds float, ptr %row7, i64 %t57
  %t59 = load float, ptr %t58
  %t60 = fdiv float %t56, %t59
  %t61 = getelementptr inbounds float, ptr %out9, i64 %t53
  store float %t60, ptr %t61
  br label %latch14
latch14:
  %i51.next = add nuw nsw i64 %i51, 1
  %t62 = icmp slt i64 %i51.next, 8
  br i1 %t62, label %body13, label %exit15, !llvm.loop !8
exit15:
  br label %latch2
latch2:
  %i2.next = add nuw nsw i64 %i2, 1
  %t63 = icmp slt i64 %i2.next, %end
  br i1 %t63, label %body1, label %exit3, !llvm.loop !10
exit3:
  ret void
}

define void @k_softmax_nest(ptr %args) #0 {
entry:
  %p0 = getelementptr inbounds ptr, ptr %args, i64 0
  %s0 = load ptr, ptr %p0, align 8
  %p1 = getelementptr inbounds ptr, ptr %args, i64 1
  %s1 = load ptr, ptr %p1, align 8
  call void @k_softmax_nest.g0(ptr %s0, ptr %s1, i64 0, i64 16)
  ret void
}

define void @k_softmax_nest.range(ptr %args, i64 %group, i64 %start, i64 %end, i64 %size) #0 {
entry:
  %p0 = getelementptr inbounds ptr, ptr %args, i64 0
  %s0 = load ptr, ptr %p0, align 8
  %p1 = getelementptr inbounds ptr, ptr %args, i64 1
  %s1 = load ptr, ptr %p1, align 8
  switch i64 %group, label %done [
    i64 0, label %g0
  ]
g0:
  call void @k_softmax_nest.g0(ptr %s0, ptr %s1, i64 %start, i64 %end)
  br label %done
done:
  ret void
}

define internal double @gojit.exp.core(double %c) alwaysinline nounwind {
entry:
  %v1 = fmul double %c, 0x3FF71547652B82FE
  %v2 = call double @llvm.rint.f64(double %v1)
  %v3 = fmul double %v2, 0x3FE62E42FEE00000
  %v4 = fsub double %c, %v3
  %v5 = fmul double %v2, 0x3DEA39EF35793C76
  %v6 = fsub double %v4, %v5
  %v7 = fmul double 0x3E927E4FB7789F5C, %v6
  %v8 = fadd double %v7, 0x3EC71DE3A556C734
  %v9 = fmul double %v8, %v6
  %v10 = fadd double %v9, 0x3EFA01A01A01A01A
  %v11 = fmul double %v10, %v6
  %v12 = fadd double %v11, 0x3F2A01A01A01A01A
  %v13 = fmul double %v12, %v6
  %v14 = fadd double %v13, 0x3F56C16C16C16C17
  %v15 = fmul double %v14, %v6
  %v16 = fadd double %v15, 0x3F81111111111111
  %v17 = fmul double %v16, %v6
  %v18 = fadd double %v17, 0x3FA5555555555555
  %v19 = fmul double %v18, %v6
  %v20 = fadd double %v19, 0x3FC5555555555555
  %v21 = fmul double %v20, %v6
  %v22 = fadd double %v21, 0x3FE0000000000000
  %v23 = fmul double %v22, %v6
  %v24 = fadd double %v23, 0x3FF0000000000000
  %v25 = fmul double %v24, %v6
  %v26 = fadd double %v25, 0x3FF0000000000000
  %v27 = fptosi double %v2 to i64
  %v28 = add nsw i64 %v27, 1023
  %v29 = shl i64 %v28, 52
  %v30 = bitcast i64 %v29 to double
  %v31 = fmul double %v26, %v30
  ret double %v31
}

define internal float @gojit.expf(float %x) alwaysinline nounwind {
entry:
  %v1 = call float @llvm.maxnum.f32(float %x, float 0xC05A000000000000)
  %v2 = call float @llvm.minnum.f32(float %v1, float 0x4056400000000000)
  %v3 = fmul float %v2, 0x3FF7154760000000
  %v4 = call float @llvm.rint.f32(float %v3)
  %v5 = call float @llvm.fmuladd.f32(float %v4, float 0xBFE62E4000000000, float %v2)
  %v6 = call float @llvm.fmuladd.f32(float %v4, float 0xBEB7F7D1C0000000, float %v5)
  %v7 = call float @llvm.fmuladd.f32(float 0x3F2A01A020000000, float %v6, float 0x3F56C16C20000000)
  %v8 = call float @llvm.fmuladd.f32(float %v7, float %v6, float 0x3F81111120000000)
  %v9 = call float @llvm.fmuladd.f32(float %v8, float %v6, float 0x3FA5555560000000)
  %v10 = call float @llvm.fmuladd.f32(float %v9, float %v6, float 0x3FC5555560000000)
  %v11 = call float @llvm.fmuladd.f32(float %v10, float %v6, float 0x3FE0000000000000)
  %v12 = call float @llvm.fmuladd.f32(float %v11, float %v6, float 0x3FF0000000000000)
  %v13 = call float @llvm.fmuladd.f32(float %v12, float %v6, float 0x3FF0000000000000)
  %v14 = fptosi float %v4 to i32
  %v15 = ashr i32 %v14, 1
  %v16 = sub nsw i32 %v14, %v15
  %v17 = add nsw i32 %v15, 127
  %v18 = shl i32 %v17, 23
  %v19 = bitcast i32 %v18 to float
  %v20 = add nsw i32 %v16, 127
  %v21 = shl i32 %v20, 23
  %v22 = bitcast i32 %v21 to float
  %v23 = fmul float %v13, %v19
  %v24 = fmul float %v23, %v22
  %v25 = fcmp uno float %x, %x
  %v26 = select i1 %v25, float %x, float %v24
  ret float %v26
}

define internal float @gojit.tanhf(float %x) alwaysinline nounwind {
entry:
  %v1 = fpext float %x to double
  %v2 = call double @llvm.fabs.f64(double %v1)
  %v3 = call double @llvm.minnum.f64(double %v2, double 0x4034000000000000)
  %v4 = fmul double %v3, 0x4000000000000000
  %v5 = call double @gojit.exp.core(double %v4)
  %v6 = fadd double %v5, 0x3FF0000000000000
  %v7 = fdiv double 0x4000000000000000, %v6
  %v8 = fsub double 0x3FF0000000000000, %v7
  %v9 = fmul double %v3, %v3
  %v10 = fmul double 0xBF8226E355E6C23D, %v9
  %v11 = fadd double %v10, 0x3F9664F4882C10FA
  %v12 = fmul double %v11, %v9
  %v13 = fadd double %v12, 0xBFABA1BA1BA1BA1C
  %v14 = fmul double %v13, %v9
  %v15 = fadd double %v14, 0x3FC1111111111111
  %v16 = fmul double %v15, %v9
  %v17 = fadd double %v16, 0xBFD5555555555555
  %v18 = fmul double %v17, %v9
  %v19 = fadd double %v18, 0x3FF0000000000000
  %v20 = fmul double %v3, %v19
  %v21 = fcmp olt double %v3, 0x3FA47AE147AE147B
  %v22 = select i1 %v21, double %v20, double %v8
  %v23 = call double @llvm.copysign.f64(double %v22, double %v1)
  %v24 = fptrunc double %v23 to float
  %v25 = fcmp uno float %x, %x
  %v26 = select i1 %v25, float %x, float %v24
  ret float %v26
}

declare double @llvm.copysign.f64(double, double)
declare double @llvm.fabs.f64(double)
declare float @llvm.fmuladd.f32(float, float, float)
declare float @llvm.maximum.f32(float, float)
declare float @llvm.maxnum.f32(float, float)
declare double @llvm.maxnum.f64(double, double)
declare float @llvm.minnum.f32(float, float)
declare double @llvm.minnum.f64(double, double)
declare float @llvm.rint.f32(float)
declare double @llvm.rint.f64(double)

!0 = !{i32 1}
!1 = distinct !{!1, !2}
!2 = !{!"llvm.loop.unroll.disable"}
!3 = distinct !{!3, !4, !5}
!4 = !{!"llvm.loop.interleave.count", i32 2}
!5 = !{!"llvm.loop.unroll.disable"}
!6 = distinct !{!6, !7}
!7 = !{!"llvm.loop.unroll.disable"}
!8 = distinct !{!8, !9}
!9 = !{!"llvm.loop.unroll.disable"}
!10 = distinct !{!10, !11}
!11 = !{!"llvm.loop.unroll.disable"}

attributes #0 = { nounwind }
attributes #1 = { nounwind noinline "prefer-vector-width"="512" }
