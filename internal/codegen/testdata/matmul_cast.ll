; gojit module k_matmul_cast

; group 0 computes %2 = matmul %0, %1 : f32[2,3,5]
define internal void @k_matmul_cast.g0(ptr noalias readonly %in0, ptr noalias readonly %in1, ptr noalias %out, i64 %start, i64 %end) #1 {
entry:
  %t1 = icmp slt i64 %start, %end
  br i1 %t1, label %body1, label %exit3
body1:
  %i2 = phi i64 [ %start, %entry ], [ %i2.next, %latch2 ]
  %t3 = udiv i64 %i2, 3
  %t4 = mul nuw nsw i64 %t3, 20
  %t5 = mul nuw nsw i64 %i2, 5
  %t6 = mul nuw nsw i64 %i2, 4
  %t7 = icmp slt i64 0, 5
  br i1 %t7, label %body4, label %exit6
body4:
  %i8 = phi i64 [ 0, %body1 ], [ %i8.next, %latch5 ]
  %t9 = add nuw nsw i64 %t5, %i8
  %t10 = getelementptr inbounds float, ptr %out, i64 %t9
  store float 0x0000000000000000, ptr %t10
  br label %latch5
latch5:
  %i8.next = add nuw nsw i64 %i8, 1
  %t11 = icmp slt i64 %i8.next, 5
  br i1 %t11, label %body4, label %exit6
exit6:
  %t12 = icmp slt i64 0, 4
  br i1 %t12, label %body7, label %exit9
body7:
  %i13 = phi i64 [ 0, %exit6 ], [ %i13.next, %latch8 ]
  %t14 = add nuw nsw i64 %t6, %i13
  %t15 = getelementptr inbounds float, ptr %in0, i64 %t14
  %t16 = load float, ptr %t15
  %t17 = mul nuw nsw i64 %i13, 5
  %t18 = add nuw nsw i64 %t4, %t17
  %t19 = icmp slt i64 0, 5
  br i1 %t19, label %body10, label %exit12
body10:
  %i20 = phi i64 [ 0, %body7 ], [ %i20.next, %latch11 ]
  %t21 = add nuw nsw i64 %t5, %i20
  %t22 = getelementptr inbounds float, ptr %out, i64 %t21
  %t23 = load float, ptr %t22
  %t24 = add nuw nsw i64 %t18, %i20
  %t25 = getelementptr inbounds float, ptr %in1, i64 %t24
  %t26 = load float, ptr %t25
  %t27 = fmul float %t16, %t26
  %t28 = fadd float %t23, %t27
  %t29 = getelementptr inbounds float, ptr %out, i64 %t21
  store float %t28, ptr %t29
  br label %latch11
latch11:
  %i20.next = add nuw nsw i64 %i20, 1
  %t30 = icmp slt i64 %i20.next, 5
  br i1 %t30, label %body10, label %exit12
exit12:
  br label %latch8
latch8:
  %i13.next = add nuw nsw i64 %i13, 1
  %t31 = icmp slt i64 %i13.next, 4
  br i1 %t31, label %body7, label %exit9
exit9:
  br label %latch2
latch2:
  %i2.next = add nuw nsw i64 %i2, 1
  %t32 = icmp slt i64 %i2.next, %end
  br i1 %t32, label %body1, label %exit3
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
  call void @k_matmul_cast.g0(ptr %s0, ptr %s1, ptr %s3, i64 0, i64 6)
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

declare i8 @llvm.fptoui.sat.i8.f32(float)

attributes #0 = { nounwind }
attributes #1 = { nounwind noinline }
