; gojit module k_broadcast_reduce

; group 0 computes %5 = reduce_sum %4 axes=[1] : f32[4]
define internal void @k_broadcast_reduce.g0(ptr noalias readonly %in0, ptr noalias readonly %in1, ptr noalias %out, i64 %start, i64 %end) #1 {
entry:
  %acc3 = alloca float
  %t1 = icmp slt i64 %start, %end
  br i1 %t1, label %body1, label %exit3
body1:
  %i2 = phi i64 [ %start, %entry ], [ %i2.next, %latch2 ]
  store float 0x0000000000000000, ptr %acc3
  %t4 = icmp slt i64 0, 8
  br i1 %t4, label %body4, label %exit6
body4:
  %i5 = phi i64 [ 0, %body1 ], [ %i5.next, %latch5 ]
  %t6 = mul nuw nsw i64 %i2, 8
  %t7 = add nuw nsw i64 %t6, %i5
  %t8 = getelementptr inbounds float, ptr %in0, i64 %t7
  %t9 = load float, ptr %t8
  %t10 = getelementptr inbounds float, ptr %in1, i64 %i5
  %t11 = load float, ptr %t10
  %t12 = fadd float %t9, %t11
  %t13 = call float @gojit.expf(float %t12)
  %t14 = load float, ptr %acc3
  %t15 = fadd reassoc float %t14, %t13
  store float %t15, ptr %acc3
  br label %latch5
latch5:
  %i5.next = add nuw nsw i64 %i5, 1
  %t16 = icmp slt i64 %i5.next, 8
  br i1 %t16, label %body4, label %exit6, !llvm.loop !1
exit6:
  %t17 = load float, ptr %acc3
  %t18 = getelementptr inbounds float, ptr %out, i64 %i2
  store float %t17, ptr %t18
  br label %latch2
latch2:
  %i2.next = add nuw nsw i64 %i2, 1
  %t19 = icmp slt i64 %i2.next, %end
  br i1 %t19, label %body1, label %exit3, !llvm.loop !4
exit3:
  ret void
}

define void @k_broadcast_reduce(ptr %args) #0 {
entry:
  %p0 = getelementptr inbounds ptr, ptr %args, i64 0
  %s0 = load ptr, ptr %p0, align 8
  %p1 = getelementptr inbounds ptr, ptr %args, i64 1
  %s1 = load ptr, ptr %p1, align 8
  %p2 = getelementptr inbounds ptr, ptr %args, i64 2
  %s2 = load ptr, ptr %p2, align 8
  call void @k_broadcast_reduce.g0(ptr %s0, ptr %s1, ptr %s2, i64 0, i64 4)
  ret void
}

define void @k_broadcast_reduce.range(ptr %args, i64 %group, i64 %start, i64 %end, i64 %size) #0 {
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
  call void @k_broadcast_reduce.g0(ptr %s0, ptr %s1, ptr %s2, i64 %start, i64 %end)
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
declare float @llvm.maxnum.f32(float, float)
declare double @llvm.maxnum.f64(double, double)
declare float @llvm.minnum.f32(float, float)
declare double @llvm.minnum.f64(double, double)
declare float @llvm.rint.f32(float)
declare double @llvm.rint.f64(double)

!0 = !{i32 1}
!1 = distinct !{!1, !2, !3}
!2 = !{!"llvm.loop.interleave.count", i32 2}
!3 = !{!"llvm.loop.unroll.disable"}
!4 = distinct !{!4, !5}
!5 = !{!"llvm.loop.unroll.disable"}

attributes #0 = { nounwind }
attributes #1 = { nounwind noinline "prefer-vector-width"="512" }
