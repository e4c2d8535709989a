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
  %t6 = mul nuw nsw i64 0, 96
  %t7 = sub nuw nsw i64 3, %t6
  %t8 = icmp slt i64 %t7, 96
  %t9 = select i1 %t8, i64 %t7, i64 96
  %t10 = udiv i64 %t9, 6
  %t11 = mul nuw nsw i64 %t10, 6
  %t12 = icmp slt i64 0, %t11
  br i1 %t12, label %body4, label %exit6
body4:
  %i13 = phi i64 [ 0, %body1 ], [ %i13.next, %latch5 ]
  %t14 = add nuw nsw i64 %t6, %i13
  %t15 = mul nuw nsw i64 %t14, 5
  %t16 = add nuw nsw i64 %t5, %t15
  %t17 = mul nuw nsw i64 %t14, 4
  %t18 = add nuw nsw i64 %t3, %t17
  %t19 = icmp slt i64 0, 5
  br i1 %t19, label %body7, label %exit9
body7:
  %i20 = phi i64 [ 0, %body4 ], [ %i20.next, %latch8 ]
  %t21 = add nuw nsw i64 %t16, %i20
  %t22 = getelementptr inbounds float, ptr %out, i64 %t21
  store float 0x0000000000000000, ptr %t22
  br label %latch8
latch8:
  %i20.next = add nuw nsw i64 %i20, 1
  %t23 = icmp slt i64 %i20.next, 5
  br i1 %t23, label %body7, label %exit9
exit9:
  %t24 = icmp slt i64 0, 4
  br i1 %t24, label %body10, label %exit12
body10:
  %i25 = phi i64 [ 0, %exit9 ], [ %i25.next, %latch11 ]
  %t26 = add nuw nsw i64 %t18, %i25
  %t27 = getelementptr inbounds float, ptr %in0, i64 %t26
  %t28 = load float, ptr %t27
  %t29 = mul nuw nsw i64 %i25, 5
  %t30 = add nuw nsw i64 %t4, %t29
  %t31 = icmp slt i64 0, 5
  br i1 %t31, label %body13, label %exit15
body13:
  %i32 = phi i64 [ 0, %body10 ], [ %i32.next, %latch14 ]
  %t33 = add nuw nsw i64 %t16, %i32
  %t34 = getelementptr inbounds float, ptr %out, i64 %t33
  %t35 = load float, ptr %t34
  %t36 = add nuw nsw i64 %t30, %i32
  %t37 = getelementptr inbounds float, ptr %in1, i64 %t36
  %t38 = load float, ptr %t37
  %t39 = call float @llvm.fmuladd.f32(float %t28, float %t38, float %t35)
  %t40 = getelementptr inbounds float, ptr %out, i64 %t33
  store float %t39, ptr %t40
  br label %latch14
latch14:
  %i32.next = add nuw nsw i64 %i32, 1
  %t41 = icmp slt i64 %i32.next, 5
  br i1 %t41, label %body13, label %exit15
exit15:
  br label %latch11
latch11:
  %i25.next = add nuw nsw i64 %i25, 1
  %t42 = icmp slt i64 %i25.next, 4
  br i1 %t42, label %body10, label %exit12
exit12:
  br label %latch5
latch5:
  %i13.next = add nuw nsw i64 %i13, 1
  %t43 = icmp slt i64 %i13.next, %t11
  br i1 %t43, label %body4, label %exit6
exit6:
  %t44 = icmp slt i64 %t11, %t9
  br i1 %t44, label %body16, label %exit18
body16:
  %i45 = phi i64 [ %t11, %exit6 ], [ %i45.next, %latch17 ]
  %t46 = add nuw nsw i64 %t6, %i45
  %t47 = mul nuw nsw i64 %t46, 5
  %t48 = add nuw nsw i64 %t5, %t47
  %t49 = mul nuw nsw i64 %t46, 4
  %t50 = add nuw nsw i64 %t3, %t49
  %t51 = icmp slt i64 0, 5
  br i1 %t51, label %body19, label %exit21
body19:
  %i52 = phi i64 [ 0, %body16 ], [ %i52.next, %latch20 ]
  %t53 = add nuw nsw i64 %t48, %i52
  %t54 = getelementptr inbounds float, ptr %out, i64 %t53
  store float 0x0000000000000000, ptr %t54
  br label %latch20
latch20:
  %i52.next = add nuw nsw i64 %i52, 1
  %t55 = icmp slt i64 %i52.next, 5
  br i1 %t55, label %body19, label %exit21
exit21:
  %t56 = icmp slt i64 0, 4
  br i1 %t56, label %body22, label %exit24
body22:
  %i57 = phi i64 [ 0, %exit21 ], [ %i57.next, %latch23 ]
  %t58 = add nuw nsw i64 %t50, %i57
  %t59 = getelementptr inbounds float, ptr %in0, i64 %t58
  %t60 = load float, ptr %t59
  %t61 = mul nuw nsw i64 %i57, 5
  %t62 = add nuw nsw i64 %t4, %t61
  %t63 = icmp slt i64 0, 5
  br i1 %t63, label %body25, label %exit27
body25:
  %i64 = phi i64 [ 0, %body22 ], [ %i64.next, %latch26 ]
  %t65 = add nuw nsw i64 %t48, %i64
  %t66 = getelementptr inbounds float, ptr %out, i64 %t65
  %t67 = load float, ptr %t66
  %t68 = add nuw nsw i64 %t62, %i64
  %t69 = getelementptr inbounds float, ptr %in1, i64 %t68
  %t70 = load float, ptr %t69
  %t71 = call float @llvm.fmuladd.f32(float %t60, float %t70, float %t67)
  %t72 = getelementptr inbounds float, ptr %out, i64 %t65
  store float %t71, ptr %t72
  br label %latch26
latch26:
  %i64.next = add nuw nsw i64 %i64, 1
  %t73 = icmp slt i64 %i64.next, 5
  br i1 %t73, label %body25, label %exit27
exit27:
  br label %latch23
latch23:
  %i57.next = add nuw nsw i64 %i57, 1
  %t74 = icmp slt i64 %i57.next, 4
  br i1 %t74, label %body22, label %exit24
exit24:
  br label %latch17
latch17:
  %i45.next = add nuw nsw i64 %i45, 1
  %t75 = icmp slt i64 %i45.next, %t9
  br i1 %t75, label %body16, label %exit18
exit18:
  br label %latch2
latch2:
  %i2.next = add nuw nsw i64 %i2, 1
  %t76 = icmp slt i64 %i2.next, %end
  br i1 %t76, label %body1, label %exit3
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
  %t5 = call i8 @llvm.fptoui.sat.i8.f32(float %t4)
  %t6 = getelementptr inbounds i8, ptr %out, i64 %i2
  store i8 %t5, ptr %t6
  br label %latch2
latch2:
  %i2.next = add nuw nsw i64 %i2, 1
  %t7 = icmp slt i64 %i2.next, %end
  br i1 %t7, label %body1, label %exit3
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
  br i1 %t11, label %body1, label %exit3
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

define void @k_matmul_cast.range(ptr %args, i64 %group, i64 %start, i64 %end) #0 {
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
declare i8 @llvm.fptoui.sat.i8.f32(float)

attributes #0 = { nounwind }
attributes #1 = { nounwind noinline "prefer-vector-width"="512" }
