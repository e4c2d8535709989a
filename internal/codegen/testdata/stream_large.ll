; gojit module k_stream_large

; group 0 computes %2 = add %0, %1 : f32[1048576]
define internal void @k_stream_large.g0(ptr noalias readonly %in0, ptr noalias readonly %in1, ptr noalias %out, i64 %start, i64 %end) #1 {
entry:
  %tile16 = alloca float, i64 256, align 64
  %t1 = getelementptr inbounds float, ptr %out, i64 %start
  %t2 = ptrtoint ptr %t1 to i64
  %t3 = sub i64 0, %t2
  %t4 = and i64 %t3, 63
  %t5 = udiv i64 %t4, 4
  %t6 = and i64 %t2, 3
  %t7 = icmp ne i64 %t6, 0
  %t8 = add nuw nsw i64 %start, %t5
  %t9 = icmp slt i64 %end, %t8
  %t10 = select i1 %t9, i64 %end, i64 %t8
  %t11 = select i1 %t7, i64 %end, i64 %t10
  %t12 = sub nsw i64 %end, %t11
  %t13 = sdiv i64 %t12, 256
  %t14 = mul nsw i64 %t13, 256
  %t15 = add nsw i64 %t11, %t14
  %t17 = icmp slt i64 %start, %t11
  br i1 %t17, label %body1, label %exit3
body1:
  %i18 = phi i64 [ %start, %entry ], [ %i18.next, %latch2 ]
  %t19 = getelementptr inbounds float, ptr %in0, i64 %i18
  %t20 = load float, ptr %t19
  %t21 = getelementptr inbounds float, ptr %in1, i64 %i18
  %t22 = load float, ptr %t21
  %t23 = fadd float %t20, %t22
  %t24 = getelementptr inbounds float, ptr %out, i64 %i18
  store float %t23, ptr %t24
  br label %latch2
latch2:
  %i18.next = add nuw nsw i64 %i18, 1
  %t25 = icmp slt i64 %i18.next, %t11
  br i1 %t25, label %body1, label %exit3
exit3:
  %t26 = icmp slt i64 0, %t13
  br i1 %t26, label %body4, label %exit6
body4:
  %i27 = phi i64 [ 0, %exit3 ], [ %i27.next, %latch5 ]
  %t28 = mul nsw i64 %i27, 256
  %t29 = add nsw i64 %t11, %t28
  %t30 = icmp slt i64 0, 256
  br i1 %t30, label %body7, label %exit9
body7:
  %i31 = phi i64 [ 0, %body4 ], [ %i31.next, %latch8 ]
  %t32 = add nsw i64 %t29, %i31
  %t33 = getelementptr inbounds float, ptr %in0, i64 %t32
  %t34 = load float, ptr %t33
  %t35 = getelementptr inbounds float, ptr %in1, i64 %t32
  %t36 = load float, ptr %t35
  %t37 = fadd float %t34, %t36
  %t38 = getelementptr inbounds float, ptr %tile16, i64 %i31
  store float %t37, ptr %t38
  br label %latch8
latch8:
  %i31.next = add nuw nsw i64 %i31, 1
  %t39 = icmp slt i64 %i31.next, 256
  br i1 %t39, label %body7, label %exit9
exit9:
  %t40 = getelementptr inbounds float, ptr %out, i64 %t29
  %t41 = getelementptr inbounds i8, ptr %tile16, i64 0
  %t42 = load <16 x i32>, ptr %t41, align 64
  %t43 = getelementptr inbounds i8, ptr %t40, i64 0
  store <16 x i32> %t42, ptr %t43, align 64, !nontemporal !0
  %t44 = getelementptr inbounds i8, ptr %tile16, i64 64
  %t45 = load <16 x i32>, ptr %t44, align 64
  %t46 = getelementptr inbounds i8, ptr %t40, i64 64
  store <16 x i32> %t45, ptr %t46, align 64, !nontemporal !0
  %t47 = getelementptr inbounds i8, ptr %tile16, i64 128
  %t48 = load <16 x i32>, ptr %t47, align 64
  %t49 = getelementptr inbounds i8, ptr %t40, i64 128
  store <16 x i32> %t48, ptr %t49, align 64, !nontemporal !0
  %t50 = getelementptr inbounds i8, ptr %tile16, i64 192
  %t51 = load <16 x i32>, ptr %t50, align 64
  %t52 = getelementptr inbounds i8, ptr %t40, i64 192
  store <16 x i32> %t51, ptr %t52, align 64, !nontemporal !0
  %t53 = getelementptr inbounds i8, ptr %tile16, i64 256
  %t54 = load <16 x i32>, ptr %t53, align 64
  %t55 = getelementptr inbounds i8, ptr %t40, i64 256
  store <16 x i32> %t54, ptr %t55, align 64, !nontemporal !0
  %t56 = getelementptr inbounds i8, ptr %tile16, i64 320
  %t57 = load <16 x i32>, ptr %t56, align 64
  %t58 = getelementptr inbounds i8, ptr %t40, i64 320
  store <16 x i32> %t57, ptr %t58, align 64, !nontemporal !0
  %t59 = getelementptr inbounds i8, ptr %tile16, i64 384
  %t60 = load <16 x i32>, ptr %t59, align 64
  %t61 = getelementptr inbounds i8, ptr %t40, i64 384
  store <16 x i32> %t60, ptr %t61, align 64, !nontemporal !0
  %t62 = getelementptr inbounds i8, ptr %tile16, i64 448
  %t63 = load <16 x i32>, ptr %t62, align 64
  %t64 = getelementptr inbounds i8, ptr %t40, i64 448
  store <16 x i32> %t63, ptr %t64, align 64, !nontemporal !0
  %t65 = getelementptr inbounds i8, ptr %tile16, i64 512
  %t66 = load <16 x i32>, ptr %t65, align 64
  %t67 = getelementptr inbounds i8, ptr %t40, i64 512
  store <16 x i32> %t66, ptr %t67, align 64, !nontemporal !0
  %t68 = getelementptr inbounds i8, ptr %tile16, i64 576
  %t69 = load <16 x i32>, ptr %t68, align 64
  %t70 = getelementptr inbounds i8, ptr %t40, i64 576
  store <16 x i32> %t69, ptr %t70, align 64, !nontemporal !0
  %t71 = getelementptr inbounds i8, ptr %tile16, i64 640
  %t72 = load <16 x i32>, ptr %t71, align 64
  %t73 = getelementptr inbounds i8, ptr %t40, i64 640
  store <16 x i32> %t72, ptr %t73, align 64, !nontemporal !0
  %t74 = getelementptr inbounds i8, ptr %tile16, i64 704
  %t75 = load <16 x i32>, ptr %t74, align 64
  %t76 = getelementptr inbounds i8, ptr %t40, i64 704
  store <16 x i32> %t75, ptr %t76, align 64, !nontemporal !0
  %t77 = getelementptr inbounds i8, ptr %tile16, i64 768
  %t78 = load <16 x i32>, ptr %t77, align 64
  %t79 = getelementptr inbounds i8, ptr %t40, i64 768
  store <16 x i32> %t78, ptr %t79, align 64, !nontemporal !0
  %t80 = getelementptr inbounds i8, ptr %tile16, i64 832
  %t81 = load <16 x i32>, ptr %t80, align 64
  %t82 = getelementptr inbounds i8, ptr %t40, i64 832
  store <16 x i32> %t81, ptr %t82, align 64, !nontemporal !0
  %t83 = getelementptr inbounds i8, ptr %tile16, i64 896
  %t84 = load <16 x i32>, ptr %t83, align 64
  %t85 = getelementptr inbounds i8, ptr %t40, i64 896
  store <16 x i32> %t84, ptr %t85, align 64, !nontemporal !0
  %t86 = getelementptr inbounds i8, ptr %tile16, i64 960
  %t87 = load <16 x i32>, ptr %t86, align 64
  %t88 = getelementptr inbounds i8, ptr %t40, i64 960
  store <16 x i32> %t87, ptr %t88, align 64, !nontemporal !0
  br label %latch5
latch5:
  %i27.next = add nuw nsw i64 %i27, 1
  %t89 = icmp slt i64 %i27.next, %t13
  br i1 %t89, label %body4, label %exit6
exit6:
  %t90 = icmp slt i64 %t15, %end
  br i1 %t90, label %body10, label %exit12
body10:
  %i91 = phi i64 [ %t15, %exit6 ], [ %i91.next, %latch11 ]
  %t92 = getelementptr inbounds float, ptr %in0, i64 %i91
  %t93 = load float, ptr %t92
  %t94 = getelementptr inbounds float, ptr %in1, i64 %i91
  %t95 = load float, ptr %t94
  %t96 = fadd float %t93, %t95
  %t97 = getelementptr inbounds float, ptr %out, i64 %i91
  store float %t96, ptr %t97
  br label %latch11
latch11:
  %i91.next = add nuw nsw i64 %i91, 1
  %t98 = icmp slt i64 %i91.next, %end
  br i1 %t98, label %body10, label %exit12
exit12:
  fence seq_cst
  ret void
}

define void @k_stream_large(ptr %args) #0 {
entry:
  %p0 = getelementptr inbounds ptr, ptr %args, i64 0
  %s0 = load ptr, ptr %p0, align 8
  %p1 = getelementptr inbounds ptr, ptr %args, i64 1
  %s1 = load ptr, ptr %p1, align 8
  %p2 = getelementptr inbounds ptr, ptr %args, i64 2
  %s2 = load ptr, ptr %p2, align 8
  call void @k_stream_large.g0(ptr %s0, ptr %s1, ptr %s2, i64 0, i64 1048576)
  ret void
}

define void @k_stream_large.range(ptr %args, i64 %group, i64 %start, i64 %end, i64 %size) #0 {
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
  call void @k_stream_large.g0(ptr %s0, ptr %s1, ptr %s2, i64 %start, i64 %end)
  br label %done
done:
  ret void
}


!0 = !{i32 1}

attributes #0 = { nounwind }
attributes #1 = { nounwind noinline "prefer-vector-width"="512" }
