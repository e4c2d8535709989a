; gojit module k_take_fused

; group 0 computes %4 = mul %2, %3 : f32[6,4]
define internal void @k_take_fused.g0(ptr noalias readonly %in1, ptr noalias readonly %in0, ptr noalias %out, ptr %err, i64 %start, i64 %end) #1 {
entry:
  %acc1 = alloca i8
  store i8 0, ptr %acc1
  %t2 = icmp slt i64 %start, %end
  br i1 %t2, label %body1, label %exit3
body1:
  %i3 = phi i64 [ %start, %entry ], [ %i3.next, %latch2 ]
  %t4 = icmp slt i64 0, 4
  br i1 %t4, label %body4, label %exit6
body4:
  %i5 = phi i64 [ 0, %body1 ], [ %i5.next, %latch5 ]
  %t6 = getelementptr inbounds i32, ptr %in1, i64 %i3
  %t7 = load i32, ptr %t6
  %t8 = icmp slt i32 %t7, 0
  %t9 = add i32 %t7, 10
  %t10 = select i1 %t8, i32 %t9, i32 %t7
  %t11 = icmp uge i32 %t10, 10
  %t12 = load i8, ptr %acc1
  %t13 = zext i1 %t11 to i8
  %t14 = or i8 %t12, %t13
  store i8 %t14, ptr %acc1
  %t15 = select i1 %t11, i32 0, i32 %t10
  %t16 = zext i32 %t15 to i64
  %t17 = mul nuw nsw i64 %t16, 4
  %t18 = add nuw nsw i64 %t17, %i5
  %t19 = getelementptr inbounds float, ptr %in0, i64 %t18
  %t20 = load float, ptr %t19
  %t21 = fmul float %t20, 0x4000000000000000
  %t22 = mul nuw nsw i64 %i3, 4
  %t23 = add nuw nsw i64 %t22, %i5
  %t24 = getelementptr inbounds float, ptr %out, i64 %t23
  store float %t21, ptr %t24
  br label %latch5
latch5:
  %i5.next = add nuw nsw i64 %i5, 1
  %t25 = icmp slt i64 %i5.next, 4
  br i1 %t25, label %body4, label %exit6, !llvm.loop !1
exit6:
  br label %latch2
latch2:
  %i3.next = add nuw nsw i64 %i3, 1
  %t26 = icmp slt i64 %i3.next, %end
  br i1 %t26, label %body1, label %exit3, !llvm.loop !3
exit3:
  %t27 = load i8, ptr %acc1
  %t28 = icmp ne i8 %t27, 0
  br i1 %t28, label %recheck7, label %checked8, !prof !5
recheck7:
  %t29 = icmp slt i64 %start, %end
  br i1 %t29, label %body9, label %exit11
body9:
  %i30 = phi i64 [ %start, %recheck7 ], [ %i30.next, %latch10 ]
  %t31 = icmp slt i64 0, 4
  br i1 %t31, label %body12, label %exit14
body12:
  %i32 = phi i64 [ 0, %body9 ], [ %i32.next, %latch13 ]
  %t33 = getelementptr inbounds i32, ptr %in1, i64 %i30
  %t34 = load i32, ptr %t33
  %t35 = icmp slt i32 %t34, 0
  %t36 = add i32 %t34, 10
  %t37 = select i1 %t35, i32 %t36, i32 %t34
  %t38 = icmp uge i32 %t37, 10
  br i1 %t38, label %oob15, label %inb16, !prof !5
oob15:
  %t39 = sext i32 %t34 to i64
  call void @gojit.index_error(ptr %err, i64 2, i64 %i30, i64 %t39)
  br label %inb16
inb16:
  %t40 = select i1 %t38, i32 0, i32 %t37
  %t41 = zext i32 %t40 to i64
  %t42 = mul nuw nsw i64 %t41, 4
  %t43 = add nuw nsw i64 %t42, %i32
  %t44 = getelementptr inbounds float, ptr %in0, i64 %t43
  %t45 = load float, ptr %t44
  %t46 = fmul float %t45, 0x4000000000000000
  %t47 = mul nuw nsw i64 %i30, 4
  %t48 = add nuw nsw i64 %t47, %i32
  %t49 = getelementptr inbounds float, ptr %out, i64 %t48
  store float %t46, ptr %t49
  br label %latch13
latch13:
  %i32.next = add nuw nsw i64 %i32, 1
  %t50 = icmp slt i64 %i32.next, 4
  br i1 %t50, label %body12, label %exit14, !llvm.loop !6
exit14:
  br label %latch10
latch10:
  %i30.next = add nuw nsw i64 %i30, 1
  %t51 = icmp slt i64 %i30.next, %end
  br i1 %t51, label %body9, label %exit11, !llvm.loop !8
exit11:
  br label %checked8
checked8:
  ret void
}

define void @k_take_fused(ptr %args) #0 {
entry:
  %p0 = getelementptr inbounds ptr, ptr %args, i64 0
  %s0 = load ptr, ptr %p0, align 8
  %p1 = getelementptr inbounds ptr, ptr %args, i64 1
  %s1 = load ptr, ptr %p1, align 8
  %p2 = getelementptr inbounds ptr, ptr %args, i64 2
  %s2 = load ptr, ptr %p2, align 8
  %perr = getelementptr inbounds ptr, ptr %args, i64 3
  %serr = load ptr, ptr %perr, align 8
  call void @k_take_fused.g0(ptr %s1, ptr %s0, ptr %s2, ptr %serr, i64 0, i64 6)
  ret void
}

define void @k_take_fused.range(ptr %args, i64 %group, i64 %start, i64 %end, i64 %size) #0 {
entry:
  %p0 = getelementptr inbounds ptr, ptr %args, i64 0
  %s0 = load ptr, ptr %p0, align 8
  %p1 = getelementptr inbounds ptr, ptr %args, i64 1
  %s1 = load ptr, ptr %p1, align 8
  %p2 = getelementptr inbounds ptr, ptr %args, i64 2
  %s2 = load ptr, ptr %p2, align 8
  %perr = getelementptr inbounds ptr, ptr %args, i64 3
  %serr = load ptr, ptr %perr, align 8
  switch i64 %group, label %done [
    i64 0, label %g0
  ]
g0:
  call void @k_take_fused.g0(ptr %s1, ptr %s0, ptr %s2, ptr %serr, i64 %start, i64 %end)
  br label %done
done:
  ret void
}

define private void @gojit.index_error(ptr %err, i64 %node, i64 %pos, i64 %val) cold noinline nounwind {
entry:
  %key = add i64 %node, 1
  %pn = getelementptr inbounds i64, ptr %err, i64 1
  %pp = getelementptr inbounds i64, ptr %err, i64 2
  %pv = getelementptr inbounds i64, ptr %err, i64 3
  br label %lock
lock:
  %x = cmpxchg ptr %err, i64 0, i64 1 acquire monotonic
  %got = extractvalue { i64, i1 } %x, 1
  br i1 %got, label %locked, label %lock
locked:
  %n = load i64, ptr %pn
  %p = load i64, ptr %pp
  %none = icmp eq i64 %n, 0
  %before = icmp ult i64 %key, %n
  %same = icmp eq i64 %key, %n
  %earlier = icmp ult i64 %pos, %p
  %tie = and i1 %same, %earlier
  %b1 = or i1 %none, %before
  %better = or i1 %b1, %tie
  br i1 %better, label %write, label %unlock
write:
  store i64 %key, ptr %pn
  store i64 %pos, ptr %pp
  store i64 %val, ptr %pv
  br label %unlock
unlock:
  store atomic i64 0, ptr %err release, align 8
  ret void
}

!0 = !{i32 1}
!1 = distinct !{!1, !2}
!2 = !{!"llvm.loop.unroll.disable"}
!3 = distinct !{!3, !4}
!4 = !{!"llvm.loop.unroll.disable"}
!5 = !{!"branch_weights", i32 1, i32 1048575}
!6 = distinct !{!6, !7}
!7 = !{!"llvm.loop.unroll.disable"}
!8 = distinct !{!8, !9}
!9 = !{!"llvm.loop.unroll.disable"}

attributes #0 = { nounwind }
attributes #1 = { nounwind noinline "prefer-vector-width"="512" }
