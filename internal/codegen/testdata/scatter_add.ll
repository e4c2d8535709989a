; gojit module k_scatter_add

; group 0 computes %3 = scatter_add %0, %1, %2 axes=[0] : f32[5,3]
define internal void @k_scatter_add.g0(ptr noalias readonly %in0, ptr noalias readonly %in1, ptr noalias readonly %in2, ptr noalias %out, ptr %err, i64 %start, i64 %end) #1 {
entry:
  %t1 = icmp slt i64 0, 1
  br i1 %t1, label %body1, label %exit3
body1:
  %i2 = phi i64 [ 0, %entry ], [ %i2.next, %latch2 ]
  %t3 = icmp slt i64 0, 5
  br i1 %t3, label %body4, label %exit6
body4:
  %i4 = phi i64 [ 0, %body1 ], [ %i4.next, %latch5 ]
  %t5 = mul nuw nsw i64 %i2, 5
  %t6 = add nuw nsw i64 %t5, %i4
  %t7 = mul nuw nsw i64 %t6, 3
  %t8 = icmp slt i64 %start, %end
  br i1 %t8, label %body7, label %exit9
body7:
  %i9 = phi i64 [ %start, %body4 ], [ %i9.next, %latch8 ]
  %t10 = add nuw nsw i64 %t7, %i9
  %t11 = getelementptr inbounds float, ptr %in0, i64 %t10
  %t12 = load float, ptr %t11
  %t13 = getelementptr inbounds float, ptr %out, i64 %t10
  store float %t12, ptr %t13
  br label %latch8
latch8:
  %i9.next = add nuw nsw i64 %i9, 1
  %t14 = icmp slt i64 %i9.next, %end
  br i1 %t14, label %body7, label %exit9, !llvm.loop !1
exit9:
  br label %latch5
latch5:
  %i4.next = add nuw nsw i64 %i4, 1
  %t15 = icmp slt i64 %i4.next, 5
  br i1 %t15, label %body4, label %exit6, !llvm.loop !3
exit6:
  br label %latch2
latch2:
  %i2.next = add nuw nsw i64 %i2, 1
  %t16 = icmp slt i64 %i2.next, 1
  br i1 %t16, label %body1, label %exit3, !llvm.loop !5
exit3:
  %t17 = icmp slt i64 0, 1
  br i1 %t17, label %body10, label %exit12
body10:
  %i18 = phi i64 [ 0, %exit3 ], [ %i18.next, %latch11 ]
  %t19 = icmp slt i64 0, 4
  br i1 %t19, label %body13, label %exit15
body13:
  %i20 = phi i64 [ 0, %body10 ], [ %i20.next, %latch14 ]
  %t21 = getelementptr inbounds i64, ptr %in1, i64 %i20
  %t22 = load i64, ptr %t21
  %t23 = icmp slt i64 %t22, 0
  %t24 = add i64 %t22, 5
  %t25 = select i1 %t23, i64 %t24, i64 %t22
  %t26 = icmp uge i64 %t25, 5
  br i1 %t26, label %oob16, label %inb17, !prof !7
oob16:
  call void @gojit.index_error(ptr %err, i64 3, i64 %i20, i64 %t22)
  br label %inb17
inb17:
  %t27 = select i1 %t26, i64 0, i64 %t25
  %t28 = mul nuw nsw i64 %i18, 4
  %t29 = add nuw nsw i64 %t28, %i20
  %t30 = mul nuw nsw i64 %t29, 3
  %t31 = icmp slt i64 %start, %end
  br i1 %t31, label %body18, label %exit20
body18:
  %i32 = phi i64 [ %start, %inb17 ], [ %i32.next, %latch19 ]
  %t33 = add nuw nsw i64 %t30, %i32
  %t34 = getelementptr inbounds float, ptr %in2, i64 %t33
  %t35 = load float, ptr %t34
  %t36 = mul nuw nsw i64 %i18, 5
  %t37 = add nuw nsw i64 %t36, %t27
  %t38 = mul nuw nsw i64 %t37, 3
  %t39 = add nuw nsw i64 %t38, %i32
  %t40 = getelementptr inbounds float, ptr %out, i64 %t39
  %t41 = load float, ptr %t40
  %t42 = fadd float %t41, %t35
  %t43 = getelementptr inbounds float, ptr %out, i64 %t39
  store float %t42, ptr %t43
  br label %latch19
latch19:
  %i32.next = add nuw nsw i64 %i32, 1
  %t44 = icmp slt i64 %i32.next, %end
  br i1 %t44, label %body18, label %exit20, !llvm.loop !8
exit20:
  br label %latch14
latch14:
  %i20.next = add nuw nsw i64 %i20, 1
  %t45 = icmp slt i64 %i20.next, 4
  br i1 %t45, label %body13, label %exit15, !llvm.loop !10
exit15:
  br label %latch11
latch11:
  %i18.next = add nuw nsw i64 %i18, 1
  %t46 = icmp slt i64 %i18.next, 1
  br i1 %t46, label %body10, label %exit12, !llvm.loop !12
exit12:
  ret void
}

define void @k_scatter_add(ptr %args) #0 {
entry:
  %p0 = getelementptr inbounds ptr, ptr %args, i64 0
  %s0 = load ptr, ptr %p0, align 8
  %p1 = getelementptr inbounds ptr, ptr %args, i64 1
  %s1 = load ptr, ptr %p1, align 8
  %p2 = getelementptr inbounds ptr, ptr %args, i64 2
  %s2 = load ptr, ptr %p2, align 8
  %p3 = getelementptr inbounds ptr, ptr %args, i64 3
  %s3 = load ptr, ptr %p3, align 8
  %perr = getelementptr inbounds ptr, ptr %args, i64 4
  %serr = load ptr, ptr %perr, align 8
  call void @k_scatter_add.g0(ptr %s0, ptr %s1, ptr %s2, ptr %s3, ptr %serr, i64 0, i64 3)
  ret void
}

define void @k_scatter_add.range(ptr %args, i64 %group, i64 %start, i64 %end, i64 %size) #0 {
entry:
  %p0 = getelementptr inbounds ptr, ptr %args, i64 0
  %s0 = load ptr, ptr %p0, align 8
  %p1 = getelementptr inbounds ptr, ptr %args, i64 1
  %s1 = load ptr, ptr %p1, align 8
  %p2 = getelementptr inbounds ptr, ptr %args, i64 2
  %s2 = load ptr, ptr %p2, align 8
  %p3 = getelementptr inbounds ptr, ptr %args, i64 3
  %s3 = load ptr, ptr %p3, align 8
  %perr = getelementptr inbounds ptr, ptr %args, i64 4
  %serr = load ptr, ptr %perr, align 8
  switch i64 %group, label %done [
    i64 0, label %g0
  ]
g0:
  call void @k_scatter_add.g0(ptr %s0, ptr %s1, ptr %s2, ptr %s3, ptr %serr, i64 %start, i64 %end)
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
!5 = distinct !{!5, !6}
!6 = !{!"llvm.loop.unroll.disable"}
!7 = !{!"branch_weights", i32 1, i32 1048575}
!8 = distinct !{!8, !9}
!9 = !{!"llvm.loop.unroll.disable"}
!10 = distinct !{!10, !11}
!11 = !{!"llvm.loop.unroll.disable"}
!12 = distinct !{!12, !13}
!13 = !{!"llvm.loop.unroll.disable"}

attributes #0 = { nounwind }
attributes #1 = { nounwind noinline "prefer-vector-width"="512" }
