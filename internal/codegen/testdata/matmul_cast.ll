; gojit module k_matmul_cast

; group 0 computes %2 = matmul %0, %1 : f32[2,3,5]
define internal void @k_matmul_cast.g0(ptr noalias readonly %in0, ptr noalias readonly %in1, ptr noalias %out, i64 %start, i64 %end) #1 {
entry:
  %acc18 = alloca [128 x float], align 64
  %acc19 = alloca [60 x float], align 64
  %acc263 = alloca <5 x float>
  %acc264 = alloca <5 x float>
  %acc265 = alloca <5 x float>
  %acc266 = alloca <5 x float>
  %acc267 = alloca <5 x float>
  %acc268 = alloca <5 x float>
  %acc269 = alloca <5 x float>
  %acc270 = alloca <5 x float>
  %acc271 = alloca <5 x float>
  %acc272 = alloca <5 x float>
  %acc273 = alloca <5 x float>
  %acc274 = alloca <5 x float>
  %acc275 = alloca <5 x float>
  %acc276 = alloca <5 x float>
  %acc277 = alloca <5 x float>
  %acc278 = alloca <5 x float>
  %acc279 = alloca <5 x float>
  %acc280 = alloca <5 x float>
  %acc281 = alloca <5 x float>
  %acc282 = alloca <5 x float>
  %acc283 = alloca <5 x float>
  %acc284 = alloca <5 x float>
  %acc285 = alloca <5 x float>
  %acc286 = alloca <5 x float>
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
  %t20 = icmp slt i64 0, 1
  br i1 %t20, label %body4, label %exit6
body4:
  %i21 = phi i64 [ 0, %body1 ], [ %i21.next, %latch5 ]
  %t22 = mul nuw nsw i64 %i21, 4
  %t23 = sub nuw nsw i64 4, %t22
  %t24 = icmp slt i64 %t23, 4
  %t25 = select i1 %t24, i64 %t23, i64 4
  %t26 = icmp eq i64 %i21, 0
  %t27 = icmp eq i64 %i21, 0
  %t28 = icmp slt i64 0, %t16
  br i1 %t28, label %body7, label %exit9
body7:
  %i29 = phi i64 [ 0, %body4 ], [ %i29.next, %latch8 ]
  %t30 = mul nuw nsw i64 %i29, 12
  %t31 = add nuw nsw i64 %t8, %t30
  %t32 = mul nuw nsw i64 %i29, 48
  %t33 = add nuw nsw i64 %t31, 0
  %t34 = mul nuw nsw i64 %t33, 4
  %t35 = add nuw nsw i64 %t3, %t34
  %t36 = add nuw nsw i64 %t35, %t22
  %t37 = icmp slt i64 0, %t25
  br i1 %t37, label %body10, label %exit12
body10:
  %i38 = phi i64 [ 0, %body7 ], [ %i38.next, %latch11 ]
  %t39 = add nuw nsw i64 %t36, %i38
  %t40 = getelementptr inbounds float, ptr %in0, i64 %t39
  %t41 = load float, ptr %t40
  %t42 = mul nuw nsw i64 %i38, 12
  %t43 = add nuw nsw i64 %t32, %t42
  %t44 = add nuw nsw i64 %t43, 0
  %t45 = getelementptr inbounds float, ptr %acc19, i64 %t44
  store float %t41, ptr %t45
  br label %latch11
latch11:
  %i38.next = add nuw nsw i64 %i38, 1
  %t46 = icmp slt i64 %i38.next, %t25
  br i1 %t46, label %body10, label %exit12, !llvm.loop !1
exit12:
  %t47 = add nuw nsw i64 %t31, 1
  %t48 = mul nuw nsw i64 %t47, 4
  %t49 = add nuw nsw i64 %t3, %t48
  %t50 = add nuw nsw i64 %t49, %t22
  %t51 = icmp slt i64 0, %t25
  br i1 %t51, label %body13, label %exit15
body13:
  %i52 = phi i64 [ 0, %exit12 ], [ %i52.next, %latch14 ]
  %t53 = add nuw nsw i64 %t50, %i52
  %t54 = getelementptr inbounds float, ptr %in0, i64 %t53
  %t55 = load float, ptr %t54
  %t56 = mul nuw nsw i64 %i52, 12
  %t57 = add nuw nsw i64 %t32, %t56
  %t58 = add nuw nsw i64 %t57, 1
  %t59 = getelementptr inbounds float, ptr %acc19, i64 %t58
  store float %t55, ptr %t59
  br label %latch14
latch14:
  %i52.next = add nuw nsw i64 %i52, 1
  %t60 = icmp slt i64 %i52.next, %t25
  br i1 %t60, label %body13, label %exit15, !llvm.loop !3
exit15:
  %t61 = add nuw nsw i64 %t31, 2
  %t62 = mul nuw nsw i64 %t61, 4
  %t63 = add nuw nsw i64 %t3, %t62
  %t64 = add nuw nsw i64 %t63, %t22
  %t65 = icmp slt i64 0, %t25
  br i1 %t65, label %body16, label %exit18
body16:
  %i66 = phi i64 [ 0, %exit15 ], [ %i66.next, %latch17 ]
  %t67 = add nuw nsw i64 %t64, %i66
  %t68 = getelementptr inbounds float, ptr %in0, i64 %t67
  %t69 = load float, ptr %t68
  %t70 = mul nuw nsw i64 %i66, 12
  %t71 = add nuw nsw i64 %t32, %t70
  %t72 = add nuw nsw i64 %t71, 2
  %t73 = getelementptr inbounds float, ptr %acc19, i64 %t72
  store float %t69, ptr %t73
  br label %latch17
latch17:
  %i66.next = add nuw nsw i64 %i66, 1
  %t74 = icmp slt i64 %i66.next, %t25
  br i1 %t74, label %body16, label %exit18, !llvm.loop !5
exit18:
  %t75 = add nuw nsw i64 %t31, 3
  %t76 = mul nuw nsw i64 %t75, 4
  %t77 = add nuw nsw i64 %t3, %t76
  %t78 = add nuw nsw i64 %t77, %t22
  %t79 = icmp slt i64 0, %t25
  br i1 %t79, label %body19, label %exit21
body19:
  %i80 = phi i64 [ 0, %exit18 ], [ %i80.next, %latch20 ]
  %t81 = add nuw nsw i64 %t78, %i80
  %t82 = getelementptr inbounds float, ptr %in0, i64 %t81
  %t83 = load float, ptr %t82
  %t84 = mul nuw nsw i64 %i80, 12
  %t85 = add nuw nsw i64 %t32, %t84
  %t86 = add nuw nsw i64 %t85, 3
  %t87 = getelementptr inbounds float, ptr %acc19, i64 %t86
  store float %t83, ptr %t87
  br label %latch20
latch20:
  %i80.next = add nuw nsw i64 %i80, 1
  %t88 = icmp slt i64 %i80.next, %t25
  br i1 %t88, label %body19, label %exit21, !llvm.loop !7
exit21:
  %t89 = add nuw nsw i64 %t31, 4
  %t90 = mul nuw nsw i64 %t89, 4
  %t91 = add nuw nsw i64 %t3, %t90
  %t92 = add nuw nsw i64 %t91, %t22
  %t93 = icmp slt i64 0, %t25
  br i1 %t93, label %body22, label %exit24
body22:
  %i94 = phi i64 [ 0, %exit21 ], [ %i94.next, %latch23 ]
  %t95 = add nuw nsw i64 %t92, %i94
  %t96 = getelementptr inbounds float, ptr %in0, i64 %t95
  %t97 = load float, ptr %t96
  %t98 = mul nuw nsw i64 %i94, 12
  %t99 = add nuw nsw i64 %t32, %t98
  %t100 = add nuw nsw i64 %t99, 4
  %t101 = getelementptr inbounds float, ptr %acc19, i64 %t100
  store float %t97, ptr %t101
  br label %latch23
latch23:
  %i94.next = add nuw nsw i64 %i94, 1
  %t102 = icmp slt i64 %i94.next, %t25
  br i1 %t102, label %body22, label %exit24, !llvm.loop !9
exit24:
  %t103 = add nuw nsw i64 %t31, 5
  %t104 = mul nuw nsw i64 %t103, 4
  %t105 = add nuw nsw i64 %t3, %t104
  %t106 = add nuw nsw i64 %t105, %t22
  %t107 = icmp slt i64 0, %t25
  br i1 %t107, label %body25, label %exit27
body25:
  %i108 = phi i64 [ 0, %exit24 ], [ %i108.next, %latch26 ]
  %t109 = add nuw nsw i64 %t106, %i108
  %t110 = getelementptr inbounds float, ptr %in0, i64 %t109
  %t111 = load float, ptr %t110
  %t112 = mul nuw nsw i64 %i108, 12
  %t113 = add nuw nsw i64 %t32, %t112
  %t114 = add nuw nsw i64 %t113, 5
  %t115 = getelementptr inbounds float, ptr %acc19, i64 %t114
  store float %t111, ptr %t115
  br label %latch26
latch26:
  %i108.next = add nuw nsw i64 %i108, 1
  %t116 = icmp slt i64 %i108.next, %t25
  br i1 %t116, label %body25, label %exit27, !llvm.loop !11
exit27:
  %t117 = add nuw nsw i64 %t31, 6
  %t118 = mul nuw nsw i64 %t117, 4
  %t119 = add nuw nsw i64 %t3, %t118
  %t120 = add nuw nsw i64 %t119, %t22
  %t121 = icmp slt i64 0, %t25
  br i1 %t121, label %body28, label %exit30
body28:
  %i122 = phi i64 [ 0, %exit27 ], [ %i122.next, %latch29 ]
  %t123 = add nuw nsw i64 %t120, %i122
  %t124 = getelementptr inbounds float, ptr %in0, i64 %t123
  %t125 = load float, ptr %t124
  %t126 = mul nuw nsw i64 %i122, 12
  %t127 = add nuw nsw i64 %t32, %t126
  %t128 = add nuw nsw i64 %t127, 6
  %t129 = getelementptr inbounds float, ptr %acc19, i64 %t128
  store float %t125, ptr %t129
  br label %latch29
latch29:
  %i122.next = add nuw nsw i64 %i122, 1
  %t130 = icmp slt i64 %i122.next, %t25
  br i1 %t130, label %body28, label %exit30, !llvm.loop !13
exit30:
  %t131 = add nuw nsw i64 %t31, 7
  %t132 = mul nuw nsw i64 %t131, 4
  %t133 = add nuw nsw i64 %t3, %t132
  %t134 = add nuw nsw i64 %t133, %t22
  %t135 = icmp slt i64 0, %t25
  br i1 %t135, label %body31, label %exit33
body31:
  %i136 = phi i64 [ 0, %exit30 ], [ %i136.next, %latch32 ]
  %t137 = add nuw nsw i64 %t134, %i136
  %t138 = getelementptr inbounds float, ptr %in0, i64 %t137
  %t139 = load float, ptr %t138
  %t140 = mul nuw nsw i64 %i136, 12
  %t141 = add nuw nsw i64 %t32, %t140
  %t142 = add nuw nsw i64 %t141, 7
  %t143 = getelementptr inbounds float, ptr %acc19, i64 %t142
  store float %t139, ptr %t143
  br label %latch32
latch32:
  %i136.next = add nuw nsw i64 %i136, 1
  %t144 = icmp slt i64 %i136.next, %t25
  br i1 %t144, label %body31, label %exit33, !llvm.loop !15
exit33:
  %t145 = add nuw nsw i64 %t31, 8
  %t146 = mul nuw nsw i64 %t145, 4
  %t147 = add nuw nsw i64 %t3, %t146
  %t148 = add nuw nsw i64 %t147, %t22
  %t149 = icmp slt i64 0, %t25
  br i1 %t149, label %body34, label %exit36
body34:
  %i150 = phi i64 [ 0, %exit33 ], [ %i150.next, %latch35 ]
  %t151 = add nuw nsw i64 %t148, %i150
  %t152 = getelementptr inbounds float, ptr %in0, i64 %t151
  %t153 = load float, ptr %t152
  %t154 = mul nuw nsw i64 %i150, 12
  %t155 = add nuw nsw i64 %t32, %t154
  %t156 = add nuw nsw i64 %t155, 8
  %t157 = getelementptr inbounds float, ptr %acc19, i64 %t156
  store float %t153, ptr %t157
  br label %latch35
latch35:
  %i150.next = add nuw nsw i64 %i150, 1
  %t158 = icmp slt i64 %i150.next, %t25
  br i1 %t158, label %body34, label %exit36, !llvm.loop !17
exit36:
  %t159 = add nuw nsw i64 %t31, 9
  %t160 = mul nuw nsw i64 %t159, 4
  %t161 = add nuw nsw i64 %t3, %t160
  %t162 = add nuw nsw i64 %t161, %t22
  %t163 = icmp slt i64 0, %t25
  br i1 %t163, label %body37, label %exit39
body37:
  %i164 = phi i64 [ 0, %exit36 ], [ %i164.next, %latch38 ]
  %t165 = add nuw nsw i64 %t162, %i164
  %t166 = getelementptr inbounds float, ptr %in0, i64 %t165
  %t167 = load float, ptr %t166
  %t168 = mul nuw nsw i64 %i164, 12
  %t169 = add nuw nsw i64 %t32, %t168
  %t170 = add nuw nsw i64 %t169, 9
  %t171 = getelementptr inbounds float, ptr %acc19, i64 %t170
  store float %t167, ptr %t171
  br label %latch38
latch38:
  %i164.next = add nuw nsw i64 %i164, 1
  %t172 = icmp slt i64 %i164.next, %t25
  br i1 %t172, label %body37, label %exit39, !llvm.loop !19
exit39:
  %t173 = add nuw nsw i64 %t31, 10
  %t174 = mul nuw nsw i64 %t173, 4
  %t175 = add nuw nsw i64 %t3, %t174
  %t176 = add nuw nsw i64 %t175, %t22
  %t177 = icmp slt i64 0, %t25
  br i1 %t177, label %body40, label %exit42
body40:
  %i178 = phi i64 [ 0, %exit39 ], [ %i178.next, %latch41 ]
  %t179 = add nuw nsw i64 %t176, %i178
  %t180 = getelementptr inbounds float, ptr %in0, i64 %t179
  %t181 = load float, ptr %t180
  %t182 = mul nuw nsw i64 %i178, 12
  %t183 = add nuw nsw i64 %t32, %t182
  %t184 = add nuw nsw i64 %t183, 10
  %t185 = getelementptr inbounds float, ptr %acc19, i64 %t184
  store float %t181, ptr %t185
  br label %latch41
latch41:
  %i178.next = add nuw nsw i64 %i178, 1
  %t186 = icmp slt i64 %i178.next, %t25
  br i1 %t186, label %body40, label %exit42, !llvm.loop !21
exit42:
  %t187 = add nuw nsw i64 %t31, 11
  %t188 = mul nuw nsw i64 %t187, 4
  %t189 = add nuw nsw i64 %t3, %t188
  %t190 = add nuw nsw i64 %t189, %t22
  %t191 = icmp slt i64 0, %t25
  br i1 %t191, label %body43, label %exit45
body43:
  %i192 = phi i64 [ 0, %exit42 ], [ %i192.next, %latch44 ]
  %t193 = add nuw nsw i64 %t190, %i192
  %t194 = getelementptr inbounds float, ptr %in0, i64 %t193
  %t195 = load float, ptr %t194
  %t196 = mul nuw nsw i64 %i192, 12
  %t197 = add nuw nsw i64 %t32, %t196
  %t198 = add nuw nsw i64 %t197, 11
  %t199 = getelementptr inbounds float, ptr %acc19, i64 %t198
  store float %t195, ptr %t199
  br label %latch44
latch44:
  %i192.next = add nuw nsw i64 %i192, 1
  %t200 = icmp slt i64 %i192.next, %t25
  br i1 %t200, label %body43, label %exit45, !llvm.loop !23
exit45:
  br label %latch8
latch8:
  %i29.next = add nuw nsw i64 %i29, 1
  %t201 = icmp slt i64 %i29.next, %t16
  br i1 %t201, label %body7, label %exit9
exit9:
  br i1 %t9, label %part46, label %nopart47
part46:
  %t202 = add nuw nsw i64 %t8, %t17
  %t203 = mul nuw nsw i64 %t16, 48
  %t204 = add nuw nsw i64 %t202, 0
  %t205 = mul nuw nsw i64 %t204, 4
  %t206 = add nuw nsw i64 %t3, %t205
  %t207 = add nuw nsw i64 %t206, %t22
  %t208 = icmp slt i64 0, %t25
  br i1 %t208, label %body48, label %exit50
body48:
  %i209 = phi i64 [ 0, %part46 ], [ %i209.next, %latch49 ]
  %t210 = add nuw nsw i64 %t207, %i209
  %t211 = getelementptr inbounds float, ptr %in0, i64 %t210
  %t212 = load float, ptr %t211
  %t213 = mul nuw nsw i64 %i209, 3
  %t214 = add nuw nsw i64 %t203, %t213
  %t215 = add nuw nsw i64 %t214, 0
  %t216 = getelementptr inbounds float, ptr %acc19, i64 %t215
  store float %t212, ptr %t216
  br label %latch49
latch49:
  %i209.next = add nuw nsw i64 %i209, 1
  %t217 = icmp slt i64 %i209.next, %t25
  br i1 %t217, label %body48, label %exit50, !llvm.loop !25
exit50:
  %t218 = add nuw nsw i64 %t202, 1
  %t219 = mul nuw nsw i64 %t218, 4
  %t220 = add nuw nsw i64 %t3, %t219
  %t221 = add nuw nsw i64 %t220, %t22
  %t222 = icmp slt i64 0, %t25
  br i1 %t222, label %body51, label %exit53
body51:
  %i223 = phi i64 [ 0, %exit50 ], [ %i223.next, %latch52 ]
  %t224 = add nuw nsw i64 %t221, %i223
  %t225 = getelementptr inbounds float, ptr %in0, i64 %t224
  %t226 = load float, ptr %t225
  %t227 = mul nuw nsw i64 %i223, 3
  %t228 = add nuw nsw i64 %t203, %t227
  %t229 = add nuw nsw i64 %t228, 1
  %t230 = getelementptr inbounds float, ptr %acc19, i64 %t229
  store float %t226, ptr %t230
  br label %latch52
latch52:
  %i223.next = add nuw nsw i64 %i223, 1
  %t231 = icmp slt i64 %i223.next, %t25
  br i1 %t231, label %body51, label %exit53, !llvm.loop !27
exit53:
  %t232 = add nuw nsw i64 %t202, 2
  %t233 = mul nuw nsw i64 %t232, 4
  %t234 = add nuw nsw i64 %t3, %t233
  %t235 = add nuw nsw i64 %t234, %t22
  %t236 = icmp slt i64 0, %t25
  br i1 %t236, label %body54, label %exit56
body54:
  %i237 = phi i64 [ 0, %exit53 ], [ %i237.next, %latch55 ]
  %t238 = add nuw nsw i64 %t235, %i237
  %t239 = getelementptr inbounds float, ptr %in0, i64 %t238
  %t240 = load float, ptr %t239
  %t241 = mul nuw nsw i64 %i237, 3
  %t242 = add nuw nsw i64 %t203, %t241
  %t243 = add nuw nsw i64 %t242, 2
  %t244 = getelementptr inbounds float, ptr %acc19, i64 %t243
  store float %t240, ptr %t244
  br label %latch55
latch55:
  %i237.next = add nuw nsw i64 %i237, 1
  %t245 = icmp slt i64 %i237.next, %t25
  br i1 %t245, label %body54, label %exit56, !llvm.loop !29
exit56:
  br label %nopart47
nopart47:
  %t246 = icmp slt i64 0, %t25
  br i1 %t246, label %body57, label %exit59
body57:
  %i247 = phi i64 [ 0, %nopart47 ], [ %i247.next, %latch58 ]
  %t248 = add nuw nsw i64 %t22, %i247
  %t249 = mul nuw nsw i64 %t248, 5
  %t250 = add nuw nsw i64 %t4, %t249
  %t251 = add nuw nsw i64 %t250, 0
  %t252 = mul nuw nsw i64 %i247, 5
  %t253 = add nuw nsw i64 %t251, 0
  %t254 = getelementptr inbounds float, ptr %in1, i64 %t253
  %t255 = load <5 x float>, ptr %t254, align 4
  %t256 = add nuw nsw i64 %t252, 0
  %t257 = getelementptr inbounds float, ptr %acc18, i64 %t256
  store <5 x float> %t255, ptr %t257, align 4
  br label %latch58
latch58:
  %i247.next = add nuw nsw i64 %i247, 1
  %t258 = icmp slt i64 %i247.next, %t25
  br i1 %t258, label %body57, label %exit59, !llvm.loop !31
exit59:
  %t259 = icmp slt i64 0, %t16
  br i1 %t259, label %body60, label %exit62
body60:
  %i260 = phi i64 [ 0, %exit59 ], [ %i260.next, %latch61 ]
  %t261 = mul nuw nsw i64 %i260, 12
  %t262 = add nuw nsw i64 %t8, %t261
  %t287 = add nuw nsw i64 %t262, 0
  %t288 = mul nuw nsw i64 %t287, 5
  %t289 = add nuw nsw i64 %t5, %t288
  %t290 = add nuw nsw i64 %t289, 0
  %t291 = add nuw nsw i64 %t290, 0
  %t292 = getelementptr inbounds float, ptr %out, i64 %t291
  %t293 = load <5 x float>, ptr %t292, align 4
  %t294 = select i1 %t26, <5 x float> zeroinitializer, <5 x float> %t293
  store <5 x float> %t294, ptr %acc263
  %t295 = add nuw nsw i64 %t262, 1
  %t296 = mul nuw nsw i64 %t295, 5
  %t297 = add nuw nsw i64 %t5, %t296
  %t298 = add nuw nsw i64 %t297, 0
  %t299 = add nuw nsw i64 %t298, 0
  %t300 = getelementptr inbounds float, ptr %out, i64 %t299
  %t301 = load <5 x float>, ptr %t300, align 4
  %t302 = select i1 %t26, <5 x float> zeroinitializer, <5 x float> %t301
  store <5 x float> %t302, ptr %acc265
  %t303 = add nuw nsw i64 %t262, 2
  %t304 = mul nuw nsw i64 %t303, 5
  %t305 = add nuw nsw i64 %t5, %t304
  %t306 = add nuw nsw i64 %t305, 0
  %t307 = add nuw nsw i64 %t306, 0
  %t308 = getelementptr inbounds float, ptr %out, i64 %t307
  %t309 = load <5 x float>, ptr %t308, align 4
  %t310 = select i1 %t26, <5 x float> zeroinitializer, <5 x float> %t309
  store <5 x float> %t310, ptr %acc267
  %t311 = add nuw nsw i64 %t262, 3
  %t312 = mul nuw nsw i64 %t311, 5
  %t313 = add nuw nsw i64 %t5, %t312
  %t314 = add nuw nsw i64 %t313, 0
  %t315 = add nuw nsw i64 %t314, 0
  %t316 = getelementptr inbounds float, ptr %out, i64 %t315
  %t317 = load <5 x float>, ptr %t316, align 4
  %t318 = select i1 %t26, <5 x float> zeroinitializer, <5 x float> %t317
  store <5 x float> %t318, ptr %acc269
  %t319 = add nuw nsw i64 %t262, 4
  %t320 = mul nuw nsw i64 %t319, 5
  %t321 = add nuw nsw i64 %t5, %t320
  %t322 = add nuw nsw i64 %t321, 0
  %t323 = add nuw nsw i64 %t322, 0
  %t324 = getelementptr inbounds float, ptr %out, i64 %t323
  %t325 = load <5 x float>, ptr %t324, align 4
  %t326 = select i1 %t26, <5 x float> zeroinitializer, <5 x float> %t325
  store <5 x float> %t326, ptr %acc271
  %t327 = add nuw nsw i64 %t262, 5
  %t328 = mul nuw nsw i64 %t327, 5
  %t329 = add nuw nsw i64 %t5, %t328
  %t330 = add nuw nsw i64 %t329, 0
  %t331 = add nuw nsw i64 %t330, 0
  %t332 = getelementptr inbounds float, ptr %out, i64 %t331
  %t333 = load <5 x float>, ptr %t332, align 4
  %t334 = select i1 %t26, <5 x float> zeroinitializer, <5 x float> %t333
  store <5 x float> %t334, ptr %acc273
  %t335 = add nuw nsw i64 %t262, 6
  %t336 = mul nuw nsw i64 %t335, 5
  %t337 = add nuw nsw i64 %t5, %t336
  %t338 = add nuw nsw i64 %t337, 0
  %t339 = add nuw nsw i64 %t338, 0
  %t340 = getelementptr inbounds float, ptr %out, i64 %t339
  %t341 = load <5 x float>, ptr %t340, align 4
  %t342 = select i1 %t26, <5 x float> zeroinitializer, <5 x float> %t341
  store <5 x float> %t342, ptr %acc275
  %t343 = add nuw nsw i64 %t262, 7
  %t344 = mul nuw nsw i64 %t343, 5
  %t345 = add nuw nsw i64 %t5, %t344
  %t346 = add nuw nsw i64 %t345, 0
  %t347 = add nuw nsw i64 %t346, 0
  %t348 = getelementptr inbounds float, ptr %out, i64 %t347
  %t349 = load <5 x float>, ptr %t348, align 4
  %t350 = select i1 %t26, <5 x float> zeroinitializer, <5 x float> %t349
  store <5 x float> %t350, ptr %acc277
  %t351 = add nuw nsw i64 %t262, 8
  %t352 = mul nuw nsw i64 %t351, 5
  %t353 = add nuw nsw i64 %t5, %t352
  %t354 = add nuw nsw i64 %t353, 0
  %t355 = add nuw nsw i64 %t354, 0
  %t356 = getelementptr inbounds float, ptr %out, i64 %t355
  %t357 = load <5 x float>, ptr %t356, align 4
  %t358 = select i1 %t26, <5 x float> zeroinitializer, <5 x float> %t357
  store <5 x float> %t358, ptr %acc279
  %t359 = add nuw nsw i64 %t262, 9
  %t360 = mul nuw nsw i64 %t359, 5
  %t361 = add nuw nsw i64 %t5, %t360
  %t362 = add nuw nsw i64 %t361, 0
  %t363 = add nuw nsw i64 %t362, 0
  %t364 = getelementptr inbounds float, ptr %out, i64 %t363
  %t365 = load <5 x float>, ptr %t364, align 4
  %t366 = select i1 %t26, <5 x float> zeroinitializer, <5 x float> %t365
  store <5 x float> %t366, ptr %acc281
  %t367 = add nuw nsw i64 %t262, 10
  %t368 = mul nuw nsw i64 %t367, 5
  %t369 = add nuw nsw i64 %t5, %t368
  %t370 = add nuw nsw i64 %t369, 0
  %t371 = add nuw nsw i64 %t370, 0
  %t372 = getelementptr inbounds float, ptr %out, i64 %t371
  %t373 = load <5 x float>, ptr %t372, align 4
  %t374 = select i1 %t26, <5 x float> zeroinitializer, <5 x float> %t373
  store <5 x float> %t374, ptr %acc283
  %t375 = add nuw nsw i64 %t262, 11
  %t376 = mul nuw nsw i64 %t375, 5
  %t377 = add nuw nsw i64 %t5, %t376
  %t378 = add nuw nsw i64 %t377, 0
  %t379 = add nuw nsw i64 %t378, 0
  %t380 = getelementptr inbounds float, ptr %out, i64 %t379
  %t381 = load <5 x float>, ptr %t380, align 4
  %t382 = select i1 %t26, <5 x float> zeroinitializer, <5 x float> %t381
  store <5 x float> %t382, ptr %acc285
  %t383 = mul nuw nsw i64 %i260, 48
  %t384 = icmp slt i64 0, %t25
  br i1 %t384, label %body63, label %exit65
body63:
  %i385 = phi i64 [ 0, %body60 ], [ %i385.next, %latch64 ]
  %t386 = mul nuw nsw i64 %i385, 12
  %t387 = add nuw nsw i64 %t383, %t386
  %t388 = mul nuw nsw i64 %i385, 5
  %t389 = add nuw nsw i64 %t388, 0
  %t390 = getelementptr inbounds float, ptr %acc18, i64 %t389
  %t391 = load <5 x float>, ptr %t390, align 4
  %t392 = add nuw nsw i64 %t387, 0
  %t393 = getelementptr inbounds float, ptr %acc19, i64 %t392
  %t394 = load float, ptr %t393
  %t395 = insertelement <5 x float> poison, float %t394, i64 0
  %t396 = shufflevector <5 x float> %t395, <5 x float> poison, <5 x i32> zeroinitializer
  %t397 = load <5 x float>, ptr %acc263
  %t398 = call <5 x float> @llvm.fmuladd.v5f32(<5 x float> %t396, <5 x float> %t391, <5 x float> %t397)
  store <5 x float> %t398, ptr %acc263
  %t399 = add nuw nsw i64 %t387, 1
  %t400 = getelementptr inbounds float, ptr %acc19, i64 %t399
  %t401 = load float, ptr %t400
  %t402 = insertelement <5 x float> poison, float %t401, i64 0
  %t403 = shufflevector <5 x float> %t402, <5 x float> poison, <5 x i32> zeroinitializer
  %t404 = load <5 x float>, ptr %acc265
  %t405 = call <5 x float> @llvm.fmuladd.v5f32(<5 x float> %t403, <5 x float> %t391, <5 x float> %t404)
  store <5 x float> %t405, ptr %acc265
  %t406 = add nuw nsw i64 %t387, 2
  %t407 = getelementptr inbounds float, ptr %acc19, i64 %t406
  %t408 = load float, ptr %t407
  %t409 = insertelement <5 x float> poison, float %t408, i64 0
  %t410 = shufflevector <5 x float> %t409, <5 x float> poison, <5 x i32> zeroinitializer
  %t411 = load <5 x float>, ptr %acc267
  %t412 = call <5 x float> @llvm.fmuladd.v5f32(<5 x float> %t410, <5 x float> %t391, <5 x float> %t411)
  store <5 x float> %t412, ptr %acc267
  %t413 = add nuw nsw i64 %t387, 3
  %t414 = getelementptr inbounds float, ptr %acc19, i64 %t413
  %t415 = load float, ptr %t414
  %t416 = insertelement <5 x float> poison, float %t415, i64 0
  %t417 = shufflevector <5 x float> %t416, <5 x float> poison, <5 x i32> zeroinitializer
  %t418 = load <5 x float>, ptr %acc269
  %t419 = call <5 x float> @llvm.fmuladd.v5f32(<5 x float> %t417, <5 x float> %t391, <5 x float> %t418)
  store <5 x float> %t419, ptr %acc269
  %t420 = add nuw nsw i64 %t387, 4
  %t421 = getelementptr inbounds float, ptr %acc19, i64 %t420
  %t422 = load float, ptr %t421
  %t423 = insertelement <5 x float> poison, float %t422, i64 0
  %t424 = shufflevector <5 x float> %t423, <5 x float> poison, <5 x i32> zeroinitializer
  %t425 = load <5 x float>, ptr %acc271
  %t426 = call <5 x float> @llvm.fmuladd.v5f32(<5 x float> %t424, <5 x float> %t391, <5 x float> %t425)
  store <5 x float> %t426, ptr %acc271
  %t427 = add nuw nsw i64 %t387, 5
  %t428 = getelementptr inbounds float, ptr %acc19, i64 %t427
  %t429 = load float, ptr %t428
  %t430 = insertelement <5 x float> poison, float %t429, i64 0
  %t431 = shufflevector <5 x float> %t430, <5 x float> poison, <5 x i32> zeroinitializer
  %t432 = load <5 x float>, ptr %acc273
  %t433 = call <5 x float> @llvm.fmuladd.v5f32(<5 x float> %t431, <5 x float> %t391, <5 x float> %t432)
  store <5 x float> %t433, ptr %acc273
  %t434 = add nuw nsw i64 %t387, 6
  %t435 = getelementptr inbounds float, ptr %acc19, i64 %t434
  %t436 = load float, ptr %t435
  %t437 = insertelement <5 x float> poison, float %t436, i64 0
  %t438 = shufflevector <5 x float> %t437, <5 x float> poison, <5 x i32> zeroinitializer
  %t439 = load <5 x float>, ptr %acc275
  %t440 = call <5 x float> @llvm.fmuladd.v5f32(<5 x float> %t438, <5 x float> %t391, <5 x float> %t439)
  store <5 x float> %t440, ptr %acc275
  %t441 = add nuw nsw i64 %t387, 7
  %t442 = getelementptr inbounds float, ptr %acc19, i64 %t441
  %t443 = load float, ptr %t442
  %t444 = insertelement <5 x float> poison, float %t443, i64 0
  %t445 = shufflevector <5 x float> %t444, <5 x float> poison, <5 x i32> zeroinitializer
  %t446 = load <5 x float>, ptr %acc277
  %t447 = call <5 x float> @llvm.fmuladd.v5f32(<5 x float> %t445, <5 x float> %t391, <5 x float> %t446)
  store <5 x float> %t447, ptr %acc277
  %t448 = add nuw nsw i64 %t387, 8
  %t449 = getelementptr inbounds float, ptr %acc19, i64 %t448
  %t450 = load float, ptr %t449
  %t451 = insertelement <5 x float> poison, float %t450, i64 0
  %t452 = shufflevector <5 x float> %t451, <5 x float> poison, <5 x i32> zeroinitializer
  %t453 = load <5 x float>, ptr %acc279
  %t454 = call <5 x float> @llvm.fmuladd.v5f32(<5 x float> %t452, <5 x float> %t391, <5 x float> %t453)
  store <5 x float> %t454, ptr %acc279
  %t455 = add nuw nsw i64 %t387, 9
  %t456 = getelementptr inbounds float, ptr %acc19, i64 %t455
  %t457 = load float, ptr %t456
  %t458 = insertelement <5 x float> poison, float %t457, i64 0
  %t459 = shufflevector <5 x float> %t458, <5 x float> poison, <5 x i32> zeroinitializer
  %t460 = load <5 x float>, ptr %acc281
  %t461 = call <5 x float> @llvm.fmuladd.v5f32(<5 x float> %t459, <5 x float> %t391, <5 x float> %t460)
  store <5 x float> %t461, ptr %acc281
  %t462 = add nuw nsw i64 %t387, 10
  %t463 = getelementptr inbounds float, ptr %acc19, i64 %t462
  %t464 = load float, ptr %t463
  %t465 = insertelement <5 x float> poison, float %t464, i64 0
  %t466 = shufflevector <5 x float> %t465, <5 x float> poison, <5 x i32> zeroinitializer
  %t467 = load <5 x float>, ptr %acc283
  %t468 = call <5 x float> @llvm.fmuladd.v5f32(<5 x float> %t466, <5 x float> %t391, <5 x float> %t467)
  store <5 x float> %t468, ptr %acc283
  %t469 = add nuw nsw i64 %t387, 11
  %t470 = getelementptr inbounds float, ptr %acc19, i64 %t469
  %t471 = load float, ptr %t470
  %t472 = insertelement <5 x float> poison, float %t471, i64 0
  %t473 = shufflevector <5 x float> %t472, <5 x float> poison, <5 x i32> zeroinitializer
  %t474 = load <5 x float>, ptr %acc285
  %t475 = call <5 x float> @llvm.fmuladd.v5f32(<5 x float> %t473, <5 x float> %t391, <5 x float> %t474)
  store <5 x float> %t475, ptr %acc285
  br label %latch64
latch64:
  %i385.next = add nuw nsw i64 %i385, 1
  %t476 = icmp slt i64 %i385.next, %t25
  br i1 %t476, label %body63, label %exit65
exit65:
  %t477 = load <5 x float>, ptr %acc263
  %t478 = add nuw nsw i64 %t262, 0
  %t479 = mul nuw nsw i64 %t478, 5
  %t480 = add nuw nsw i64 %t5, %t479
  %t481 = add nuw nsw i64 %t480, 0
  %t482 = add nuw nsw i64 %t481, 0
  %t483 = getelementptr inbounds float, ptr %out, i64 %t482
  store <5 x float> %t477, ptr %t483, align 4
  %t484 = load <5 x float>, ptr %acc265
  %t485 = add nuw nsw i64 %t262, 1
  %t486 = mul nuw nsw i64 %t485, 5
  %t487 = add nuw nsw i64 %t5, %t486
  %t488 = add nuw nsw i64 %t487, 0
  %t489 = add nuw nsw i64 %t488, 0
  %t490 = getelementptr inbounds float, ptr %out, i64 %t489
  store <5 x float> %t484, ptr %t490, align 4
  %t491 = load <5 x float>, ptr %acc267
  %t492 = add nuw nsw i64 %t262, 2
  %t493 = mul nuw nsw i64 %t492, 5
  %t494 = add nuw nsw i64 %t5, %t493
  %t495 = add nuw nsw i64 %t494, 0
  %t496 = add nuw nsw i64 %t495, 0
  %t497 = getelementptr inbounds float, ptr %out, i64 %t496
  store <5 x float> %t491, ptr %t497, align 4
  %t498 = load <5 x float>, ptr %acc269
  %t499 = add nuw nsw i64 %t262, 3
  %t500 = mul nuw nsw i64 %t499, 5
  %t501 = add nuw nsw i64 %t5, %t500
  %t502 = add nuw nsw i64 %t501, 0
  %t503 = add nuw nsw i64 %t502, 0
  %t504 = getelementptr inbounds float, ptr %out, i64 %t503
  store <5 x float> %t498, ptr %t504, align 4
  %t505 = load <5 x float>, ptr %acc271
  %t506 = add nuw nsw i64 %t262, 4
  %t507 = mul nuw nsw i64 %t506, 5
  %t508 = add nuw nsw i64 %t5, %t507
  %t509 = add nuw nsw i64 %t508, 0
  %t510 = add nuw nsw i64 %t509, 0
  %t511 = getelementptr inbounds float, ptr %out, i64 %t510
  store <5 x float> %t505, ptr %t511, align 4
  %t512 = load <5 x float>, ptr %acc273
  %t513 = add nuw nsw i64 %t262, 5
  %t514 = mul nuw nsw i64 %t513, 5
  %t515 = add nuw nsw i64 %t5, %t514
  %t516 = add nuw nsw i64 %t515, 0
  %t517 = add nuw nsw i64 %t516, 0
  %t518 = getelementptr inbounds float, ptr %out, i64 %t517
  store <5 x float> %t512, ptr %t518, align 4
  %t519 = load <5 x float>, ptr %acc275
  %t520 = add nuw nsw i64 %t262, 6
  %t521 = mul nuw nsw i64 %t520, 5
  %t522 = add nuw nsw i64 %t5, %t521
  %t523 = add nuw nsw i64 %t522, 0
  %t524 = add nuw nsw i64 %t523, 0
  %t525 = getelementptr inbounds float, ptr %out, i64 %t524
  store <5 x float> %t519, ptr %t525, align 4
  %t526 = load <5 x float>, ptr %acc277
  %t527 = add nuw nsw i64 %t262, 7
  %t528 = mul nuw nsw i64 %t527, 5
  %t529 = add nuw nsw i64 %t5, %t528
  %t530 = add nuw nsw i64 %t529, 0
  %t531 = add nuw nsw i64 %t530, 0
  %t532 = getelementptr inbounds float, ptr %out, i64 %t531
  store <5 x float> %t526, ptr %t532, align 4
  %t533 = load <5 x float>, ptr %acc279
  %t534 = add nuw nsw i64 %t262, 8
  %t535 = mul nuw nsw i64 %t534, 5
  %t536 = add nuw nsw i64 %t5, %t535
  %t537 = add nuw nsw i64 %t536, 0
  %t538 = add nuw nsw i64 %t537, 0
  %t539 = getelementptr inbounds float, ptr %out, i64 %t538
  store <5 x float> %t533, ptr %t539, align 4
  %t540 = load <5 x float>, ptr %acc281
  %t541 = add nuw nsw i64 %t262, 9
  %t542 = mul nuw nsw i64 %t541, 5
  %t543 = add nuw nsw i64 %t5, %t542
  %t544 = add nuw nsw i64 %t543, 0
  %t545 = add nuw nsw i64 %t544, 0
  %t546 = getelementptr inbounds float, ptr %out, i64 %t545
  store <5 x float> %t540, ptr %t546, align 4
  %t547 = load <5 x float>, ptr %acc283
  %t548 = add nuw nsw i64 %t262, 10
  %t549 = mul nuw nsw i64 %t548, 5
  %t550 = add nuw nsw i64 %t5, %t549
  %t551 = add nuw nsw i64 %t550, 0
  %t552 = add nuw nsw i64 %t551, 0
  %t553 = getelementptr inbounds float, ptr %out, i64 %t552
  store <5 x float> %t547, ptr %t553, align 4
  %t554 = load <5 x float>, ptr %acc285
  %t555 = add nuw nsw i64 %t262, 11
  %t556 = mul nuw nsw i64 %t555, 5
  %t557 = add nuw nsw i64 %t5, %t556
  %t558 = add nuw nsw i64 %t557, 0
  %t559 = add nuw nsw i64 %t558, 0
  %t560 = getelementptr inbounds float, ptr %out, i64 %t559
  store <5 x float> %t554, ptr %t560, align 4
  br label %latch61
latch61:
  %i260.next = add nuw nsw i64 %i260, 1
  %t561 = icmp slt i64 %i260.next, %t16
  br i1 %t561, label %body60, label %exit62
exit62:
  br i1 %t9, label %part66, label %nopart67
part66:
  %t562 = add nuw nsw i64 %t8, %t17
  %t563 = add nuw nsw i64 %t562, 0
  %t564 = mul nuw nsw i64 %t563, 5
  %t565 = add nuw nsw i64 %t5, %t564
  %t566 = add nuw nsw i64 %t565, 0
  %t567 = add nuw nsw i64 %t566, 0
  %t568 = getelementptr inbounds float, ptr %out, i64 %t567
  %t569 = load <5 x float>, ptr %t568, align 4
  %t570 = select i1 %t26, <5 x float> zeroinitializer, <5 x float> %t569
  store <5 x float> %t570, ptr %acc263
  %t571 = add nuw nsw i64 %t562, 1
  %t572 = mul nuw nsw i64 %t571, 5
  %t573 = add nuw nsw i64 %t5, %t572
  %t574 = add nuw nsw i64 %t573, 0
  %t575 = add nuw nsw i64 %t574, 0
  %t576 = getelementptr inbounds float, ptr %out, i64 %t575
  %t577 = load <5 x float>, ptr %t576, align 4
  %t578 = select i1 %t26, <5 x float> zeroinitializer, <5 x float> %t577
  store <5 x float> %t578, ptr %acc265
  %t579 = add nuw nsw i64 %t562, 2
  %t580 = mul nuw nsw i64 %t579, 5
  %t581 = add nuw nsw i64 %t5, %t580
  %t582 = add nuw nsw i64 %t581, 0
  %t583 = add nuw nsw i64 %t582, 0
  %t584 = getelementptr inbounds float, ptr %out, i64 %t583
  %t585 = load <5 x float>, ptr %t584, align 4
  %t586 = select i1 %t26, <5 x float> zeroinitializer, <5 x float> %t585
  store <5 x float> %t586, ptr %acc267
  %t587 = mul nuw nsw i64 %t16, 48
  %t588 = icmp slt i64 0, %t25
  br i1 %t588, label %body68, label %exit70
body68:
  %i589 = phi i64 [ 0, %part66 ], [ %i589.next, %latch69 ]
  %t590 = mul nuw nsw i64 %i589, 3
  %t591 = add nuw nsw i64 %t587, %t590
  %t592 = mul nuw nsw i64 %i589, 5
  %t593 = add nuw nsw i64 %t592, 0
  %t594 = getelementptr inbounds float, ptr %acc18, i64 %t593
  %t595 = load <5 x float>, ptr %t594, align 4
  %t596 = add nuw nsw i64 %t591, 0
  %t597 = getelementptr inbounds float, ptr %acc19, i64 %t596
  %t598 = load float, ptr %t597
  %t599 = insertelement <5 x float> poison, float %t598, i64 0
  %t600 = shufflevector <5 x float> %t599, <5 x float> poison, <5 x i32> zeroinitializer
  %t601 = load <5 x float>, ptr %acc263
  %t602 = call <5 x float> @llvm.fmuladd.v5f32(<5 x float> %t600, <5 x float> %t595, <5 x float> %t601)
  store <5 x float> %t602, ptr %acc263
  %t603 = add nuw nsw i64 %t591, 1
  %t604 = getelementptr inbounds float, ptr %acc19, i64 %t603
  %t605 = load float, ptr %t604
  %t606 = insertelement <5 x float> poison, float %t605, i64 0
  %t607 = shufflevector <5 x float> %t606, <5 x float> poison, <5 x i32> zeroinitializer
  %t608 = load <5 x float>, ptr %acc265
  %t609 = call <5 x float> @llvm.fmuladd.v5f32(<5 x float> %t607, <5 x float> %t595, <5 x float> %t608)
  store <5 x float> %t609, ptr %acc265
  %t610 = add nuw nsw i64 %t591, 2
  %t611 = getelementptr inbounds float, ptr %acc19, i64 %t610
  %t612 = load float, ptr %t611
  %t613 = insertelement <5 x float> poison, float %t612, i64 0
  %t614 = shufflevector <5 x float> %t613, <5 x float> poison, <5 x i32> zeroinitializer
  %t615 = load <5 x float>, ptr %acc267
  %t616 = call <5 x float> @llvm.fmuladd.v5f32(<5 x float> %t614, <5 x float> %t595, <5 x float> %t615)
  store <5 x float> %t616, ptr %acc267
  br label %latch69
latch69:
  %i589.next = add nuw nsw i64 %i589, 1
  %t617 = icmp slt i64 %i589.next, %t25
  br i1 %t617, label %body68, label %exit70
exit70:
  %t618 = load <5 x float>, ptr %acc263
  %t619 = add nuw nsw i64 %t562, 0
  %t620 = mul nuw nsw i64 %t619, 5
  %t621 = add nuw nsw i64 %t5, %t620
  %t622 = add nuw nsw i64 %t621, 0
  %t623 = add nuw nsw i64 %t622, 0
  %t624 = getelementptr inbounds float, ptr %out, i64 %t623
  store <5 x float> %t618, ptr %t624, align 4
  %t625 = load <5 x float>, ptr %acc265
  %t626 = add nuw nsw i64 %t562, 1
  %t627 = mul nuw nsw i64 %t626, 5
  %t628 = add nuw nsw i64 %t5, %t627
  %t629 = add nuw nsw i64 %t628, 0
  %t630 = add nuw nsw i64 %t629, 0
  %t631 = getelementptr inbounds float, ptr %out, i64 %t630
  store <5 x float> %t625, ptr %t631, align 4
  %t632 = load <5 x float>, ptr %acc267
  %t633 = add nuw nsw i64 %t562, 2
  %t634 = mul nuw nsw i64 %t633, 5
  %t635 = add nuw nsw i64 %t5, %t634
  %t636 = add nuw nsw i64 %t635, 0
  %t637 = add nuw nsw i64 %t636, 0
  %t638 = getelementptr inbounds float, ptr %out, i64 %t637
  store <5 x float> %t632, ptr %t638, align 4
  br label %nopart67
nopart67:
  br label %latch5
latch5:
  %i21.next = add nuw nsw i64 %i21, 1
  %t639 = icmp slt i64 %i21.next, 1
  br i1 %t639, label %body4, label %exit6
exit6:
  %t640 = icmp slt i64 %t15, %t15
  br i1 %t640, label %body71, label %exit73
body71:
  %i641 = phi i64 [ %t15, %exit6 ], [ %i641.next, %latch72 ]
  %t642 = add nuw nsw i64 %t8, %i641
  %t643 = mul nuw nsw i64 %t642, 5
  %t644 = add nuw nsw i64 %t5, %t643
  %t645 = mul nuw nsw i64 %t642, 4
  %t646 = add nuw nsw i64 %t3, %t645
  %t647 = icmp slt i64 0, 5
  br i1 %t647, label %body74, label %exit76
body74:
  %i648 = phi i64 [ 0, %body71 ], [ %i648.next, %latch75 ]
  %t649 = add nuw nsw i64 %t644, %i648
  %t650 = getelementptr inbounds float, ptr %out, i64 %t649
  store float 0x0000000000000000, ptr %t650
  br label %latch75
latch75:
  %i648.next = add nuw nsw i64 %i648, 1
  %t651 = icmp slt i64 %i648.next, 5
  br i1 %t651, label %body74, label %exit76
exit76:
  %t652 = icmp slt i64 0, 4
  br i1 %t652, label %body77, label %exit79
body77:
  %i653 = phi i64 [ 0, %exit76 ], [ %i653.next, %latch78 ]
  %t654 = add nuw nsw i64 %t646, %i653
  %t655 = getelementptr inbounds float, ptr %in0, i64 %t654
  %t656 = load float, ptr %t655
  %t657 = mul nuw nsw i64 %i653, 5
  %t658 = add nuw nsw i64 %t4, %t657
  %t659 = icmp slt i64 0, 5
  br i1 %t659, label %body80, label %exit82
body80:
  %i660 = phi i64 [ 0, %body77 ], [ %i660.next, %latch81 ]
  %t661 = add nuw nsw i64 %t644, %i660
  %t662 = getelementptr inbounds float, ptr %out, i64 %t661
  %t663 = load float, ptr %t662
  %t664 = add nuw nsw i64 %t658, %i660
  %t665 = getelementptr inbounds float, ptr %in1, i64 %t664
  %t666 = load float, ptr %t665
  %t667 = call float @llvm.fmuladd.f32(float %t656, float %t666, float %t663)
  %t668 = getelementptr inbounds float, ptr %out, i64 %t661
  store float %t667, ptr %t668
  br label %latch81
latch81:
  %i660.next = add nuw nsw i64 %i660, 1
  %t669 = icmp slt i64 %i660.next, 5
  br i1 %t669, label %body80, label %exit82, !llvm.loop !33
exit82:
  br label %latch78
latch78:
  %i653.next = add nuw nsw i64 %i653, 1
  %t670 = icmp slt i64 %i653.next, 4
  br i1 %t670, label %body77, label %exit79
exit79:
  br label %latch72
latch72:
  %i641.next = add nuw nsw i64 %i641, 1
  %t671 = icmp slt i64 %i641.next, %t15
  br i1 %t671, label %body71, label %exit73
exit73:
  br label %latch2
latch2:
  %i2.next = add nuw nsw i64 %i2, 1
  %t672 = icmp slt i64 %i2.next, %end
  br i1 %t672, label %body1, label %exit3
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
  br i1 %t7, label %body1, label %exit3, !llvm.loop !35
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
  br i1 %t11, label %body1, label %exit3, !llvm.loop !37
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
declare <5 x float> @llvm.fmuladd.v5f32(<5 x float>, <5 x float>, <5 x float>)
declare i8 @llvm.fptoui.sat.i8.f32(float)

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
!19 = distinct !{!19, !20}
!20 = !{!"llvm.loop.unroll.disable"}
!21 = distinct !{!21, !22}
!22 = !{!"llvm.loop.unroll.disable"}
!23 = distinct !{!23, !24}
!24 = !{!"llvm.loop.unroll.disable"}
!25 = distinct !{!25, !26}
!26 = !{!"llvm.loop.unroll.disable"}
!27 = distinct !{!27, !28}
!28 = !{!"llvm.loop.unroll.disable"}
!29 = distinct !{!29, !30}
!30 = !{!"llvm.loop.unroll.disable"}
!31 = distinct !{!31, !32}
!32 = !{!"llvm.loop.unroll.disable"}
!33 = distinct !{!33, !34}
!34 = !{!"llvm.loop.unroll.disable"}
!35 = distinct !{!35, !36}
!36 = !{!"llvm.loop.unroll.disable"}
!37 = distinct !{!37, !38}
!38 = !{!"llvm.loop.unroll.disable"}

attributes #0 = { nounwind }
attributes #1 = { nounwind noinline "prefer-vector-width"="512" }
