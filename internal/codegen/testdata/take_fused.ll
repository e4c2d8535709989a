; gojit module k_take_fused

; group 0 computes %4 = mul %2, %3 : f32[6,4]
define internal void @k_take_fused.g0(ptr noalias readonly %in1, ptr noalias readonly %in0, ptr noalias %out, ptr %err, i64 %start, i64 %end) #1 {
entry:
  %t1 = icmp slt i64 %start, %end
  br i1 %t1, label %body1, label %exit3
body1:
  %i2 = phi i64 [ %start, %entry ], [ %i2.next, %latch2 ]
  %t3 = icmp slt i64 0, 4
  br i1 %t3, label %body4, label %exit6
body4:
  %i4 = phi i64 [ 0, %body1 ], [ %i4.next, %latch5 ]
  %t5 = getelementptr inbounds i32, ptr %in1, i64 %i2
  %t6 = load i32, ptr %t5
  %t7 = sext i32 %t6 to i64
  %t8 = icmp slt i64 %t7, 0
  %t9 = add i64 %t7, 10
  %t10 = select i1 %t8, i64 %t9, i64 %t7
  %t11 = icmp uge i64 %t10, 10
  br i1 %t11, label %oob7, label %inb8, !prof !1
oob7:
  call void @gojit.index_error(ptr %err, i64 2, i64 %i2, i64 %t7)
  br label %inb8
inb8:
  %t12 = select i1 %t11, i64 0, i64 %t10
  %t13 = mul nuw nsw i64 %t12, 4
  %t14 = add nuw nsw i64 %t13, %i4
  %t15 = getelementptr inbounds float, ptr %in0, i64 %t14
  %t16 = load float, ptr %t15
  %t17 = fmul float %t16, 0x4000000000000000
  %t18 = mul nuw nsw i64 %i2, 4
  %t19 = add nuw nsw i64 %t18, %i4
  %t20 = getelementptr inbounds float, ptr %out, i64 %t19
  store float %t17, ptr %t20
  br label %latch5
latch5:
  %i4.next = add nuw nsw i64 %i4, 1
  %t21 = icmp slt i64 %i4.next, 4
  br i1 %t21, label %body4, label %exit6, !llvm.loop !2
exit6:
  br label %latch2
latch2:
  %i2.next = add nuw nsw i64 %i2, 1
  %t22 = icmp slt i64 %i2.next, %end
  br i1 %t22, label %body1, label %exit3, !llvm.loop !4
exit3:
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
!1 = !{!"branch_weights", i32 1, i32 1048575}
!2 = distinct !{!2, !3}
!3 = !{!"llvm.loop.unroll.disable"}
!4 = distinct !{!4, !5}
!5 = !{!"llvm.loop.unroll.disable"}

attributes #0 = { nounwind }
attributes #1 = { nounwind noinline "prefer-vector-width"="512" }
