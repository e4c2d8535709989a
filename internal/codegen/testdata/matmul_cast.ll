; gojit module k_matmul_cast

; group 0 computes %2 = matmul %0, %1 : f32[2,3,5]
define internal void @k_matmul_cast.g0(ptr noalias readonly %in0, ptr noalias readonly %in1, ptr noalias %out, i64 %start, i64 %end) #1 {
entry:
  %acc18 = alloca [128 x float], align 64
  %acc44 = alloca <5 x float>
  %acc45 = alloca <5 x float>
  %acc46 = alloca <5 x float>
  %acc47 = alloca <5 x float>
  %acc48 = alloca <5 x float>
  %acc49 = alloca <5 x float>
  %acc50 = alloca <5 x float>
  %acc51 = alloca <5 x float>
  %acc52 = alloca <5 x float>
  %acc53 = alloca <5 x float>
  %acc54 = alloca <5 x float>
  %acc55 = alloca <5 x float>
  %acc56 = alloca <5 x float>
  %acc57 = alloca <5 x float>
  %acc58 = alloca <5 x float>
  %acc59 = alloca <5 x float>
  %acc60 = alloca <5 x float>
  %acc61 = alloca <5 x float>
  %acc62 = alloca <5 x float>
  %acc63 = alloca <5 x float>
  %acc64 = alloca <5 x float>
  %acc65 = alloca <5 x float>
  %acc66 = alloca <5 x float>
  %acc67 = alloca <5 x float>
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
  %t19 = icmp slt i64 0, 1
  br i1 %t19, label %body4, label %exit6
body4:
  %i20 = phi i64 [ 0, %body1 ], [ %i20.next, %latch5 ]
  %t21 = mul nuw nsw i64 %i20, 4
  %t22 = sub nuw nsw i64 4, %t21
  %t23 = icmp slt i64 %t22, 4
  %t24 = select i1 %t23, i64 %t22, i64 4
  %t25 = icmp eq i64 %i20, 0
  %t26 = icmp eq i64 %i20, 0
  %t27 = icmp slt i64 0, %t24
  br i1 %t27, label %body7, label %exit9
body7:
  %i28 = phi i64 [ 0, %body4 ], [ %i28.next, %latch8 ]
  %t29 = add nuw nsw i64 %t21, %i28
  %t30 = mul nuw nsw i64 %t29, 5
  %t31 = add nuw nsw i64 %t4, %t30
  %t32 = add nuw nsw i64 %t31, 0
  %t33 = mul nuw nsw i64 %i28, 5
  %t34 = add nuw nsw i64 %t32, 0
  %t35 = getelementptr inbounds float, ptr %in1, i64 %t34
  %t36 = load <5 x float>, ptr %t35, align 4
  %t37 = add nuw nsw i64 %t33, 0
  %t38 = getelementptr inbounds float, ptr %acc18, i64 %t37
  store <5 x float> %t36, ptr %t38, align 4
  br label %latch8
latch8:
  %i28.next = add nuw nsw i64 %i28, 1
  %t39 = icmp slt i64 %i28.next, %t24
  br i1 %t39, label %body7, label %exit9, !llvm.loop !1
exit9:
  %t40 = icmp slt i64 0, %t16
  br i1 %t40, label %body10, label %exit12
body10:
  %i41 = phi i64 [ 0, %exit9 ], [ %i41.next, %latch11 ]
  %t42 = mul nuw nsw i64 %i41, 12
  %t43 = add nuw nsw i64 %t8, %t42
  %t68 = add nuw nsw i64 %t43, 0
  %t69 = mul nuw nsw i64 %t68, 5
  %t70 = add nuw nsw i64 %t5, %t69
  %t71 = add nuw nsw i64 %t70, 0
  %t72 = add nuw nsw i64 %t71, 0
  %t73 = getelementptr inbounds float, ptr %out, i64 %t72
  %t74 = load <5 x float>, ptr %t73, align 4
  %t75 = select i1 %t25, <5 x float> zeroinitializer, <5 x float> %t74
  store <5 x float> %t75, ptr %acc44
  %t76 = add nuw nsw i64 %t43, 1
  %t77 = mul nuw nsw i64 %t76, 5
  %t78 = add nuw nsw i64 %t5, %t77
  %t79 = add nuw nsw i64 %t78, 0
  %t80 = add nuw nsw i64 %t79, 0
  %t81 = getelementptr inbounds float, ptr %out, i64 %t80
  %t82 = load <5 x float>, ptr %t81, align 4
  %t83 = select i1 %t25, <5 x float> zeroinitializer, <5 x float> %t82
  store <5 x float> %t83, ptr %acc46
  %t84 = add nuw nsw i64 %t43, 2
  %t85 = mul nuw nsw i64 %t84, 5
  %t86 = add nuw nsw i64 %t5, %t85
  %t87 = add nuw nsw i64 %t86, 0
  %t88 = add nuw nsw i64 %t87, 0
  %t89 = getelementptr inbounds float, ptr %out, i64 %t88
  %t90 = load <5 x float>, ptr %t89, align 4
  %t91 = select i1 %t25, <5 x float> zeroinitializer, <5 x float> %t90
  store <5 x float> %t91, ptr %acc48
  %t92 = add nuw nsw i64 %t43, 3
  %t93 = mul nuw nsw i64 %t92, 5
  %t94 = add nuw nsw i64 %t5, %t93
  %t95 = add nuw nsw i64 %t94, 0
  %t96 = add nuw nsw i64 %t95, 0
  %t97 = getelementptr inbounds float, ptr %out, i64 %t96
  %t98 = load <5 x float>, ptr %t97, align 4
  %t99 = select i1 %t25, <5 x float> zeroinitializer, <5 x float> %t98
  store <5 x float> %t99, ptr %acc50
  %t100 = add nuw nsw i64 %t43, 4
  %t101 = mul nuw nsw i64 %t100, 5
  %t102 = add nuw nsw i64 %t5, %t101
  %t103 = add nuw nsw i64 %t102, 0
  %t104 = add nuw nsw i64 %t103, 0
  %t105 = getelementptr inbounds float, ptr %out, i64 %t104
  %t106 = load <5 x float>, ptr %t105, align 4
  %t107 = select i1 %t25, <5 x float> zeroinitializer, <5 x float> %t106
  store <5 x float> %t107, ptr %acc52
  %t108 = add nuw nsw i64 %t43, 5
  %t109 = mul nuw nsw i64 %t108, 5
  %t110 = add nuw nsw i64 %t5, %t109
  %t111 = add nuw nsw i64 %t110, 0
  %t112 = add nuw nsw i64 %t111, 0
  %t113 = getelementptr inbounds float, ptr %out, i64 %t112
  %t114 = load <5 x float>, ptr %t113, align 4
  %t115 = select i1 %t25, <5 x float> zeroinitializer, <5 x float> %t114
  store <5 x float> %t115, ptr %acc54
  %t116 = add nuw nsw i64 %t43, 6
  %t117 = mul nuw nsw i64 %t116, 5
  %t118 = add nuw nsw i64 %t5, %t117
  %t119 = add nuw nsw i64 %t118, 0
  %t120 = add nuw nsw i64 %t119, 0
  %t121 = getelementptr inbounds float, ptr %out, i64 %t120
  %t122 = load <5 x float>, ptr %t121, align 4
  %t123 = select i1 %t25, <5 x float> zeroinitializer, <5 x float> %t122
  store <5 x float> %t123, ptr %acc56
  %t124 = add nuw nsw i64 %t43, 7
  %t125 = mul nuw nsw i64 %t124, 5
  %t126 = add nuw nsw i64 %t5, %t125
  %t127 = add nuw nsw i64 %t126, 0
  %t128 = add nuw nsw i64 %t127, 0
  %t129 = getelementptr inbounds float, ptr %out, i64 %t128
  %t130 = load <5 x float>, ptr %t129, align 4
  %t131 = select i1 %t25, <5 x float> zeroinitializer, <5 x float> %t130
  store <5 x float> %t131, ptr %acc58
  %t132 = add nuw nsw i64 %t43, 8
  %t133 = mul nuw nsw i64 %t132, 5
  %t134 = add nuw nsw i64 %t5, %t133
  %t135 = add nuw nsw i64 %t134, 0
  %t136 = add nuw nsw i64 %t135, 0
  %t137 = getelementptr inbounds float, ptr %out, i64 %t136
  %t138 = load <5 x float>, ptr %t137, align 4
  %t139 = select i1 %t25, <5 x float> zeroinitializer, <5 x float> %t138
  store <5 x float> %t139, ptr %acc60
  %t140 = add nuw nsw i64 %t43, 9
  %t141 = mul nuw nsw i64 %t140, 5
  %t142 = add nuw nsw i64 %t5, %t141
  %t143 = add nuw nsw i64 %t142, 0
  %t144 = add nuw nsw i64 %t143, 0
  %t145 = getelementptr inbounds float, ptr %out, i64 %t144
  %t146 = load <5 x float>, ptr %t145, align 4
  %t147 = select i1 %t25, <5 x float> zeroinitializer, <5 x float> %t146
  store <5 x float> %t147, ptr %acc62
  %t148 = add nuw nsw i64 %t43, 10
  %t149 = mul nuw nsw i64 %t148, 5
  %t150 = add nuw nsw i64 %t5, %t149
  %t151 = add nuw nsw i64 %t150, 0
  %t152 = add nuw nsw i64 %t151, 0
  %t153 = getelementptr inbounds float, ptr %out, i64 %t152
  %t154 = load <5 x float>, ptr %t153, align 4
  %t155 = select i1 %t25, <5 x float> zeroinitializer, <5 x float> %t154
  store <5 x float> %t155, ptr %acc64
  %t156 = add nuw nsw i64 %t43, 11
  %t157 = mul nuw nsw i64 %t156, 5
  %t158 = add nuw nsw i64 %t5, %t157
  %t159 = add nuw nsw i64 %t158, 0
  %t160 = add nuw nsw i64 %t159, 0
  %t161 = getelementptr inbounds float, ptr %out, i64 %t160
  %t162 = load <5 x float>, ptr %t161, align 4
  %t163 = select i1 %t25, <5 x float> zeroinitializer, <5 x float> %t162
  store <5 x float> %t163, ptr %acc66
  %t164 = mul nuw nsw i64 %t43, 4
  %t165 = add nuw nsw i64 %t3, %t164
  %t166 = icmp slt i64 0, %t24
  br i1 %t166, label %body13, label %exit15
body13:
  %i167 = phi i64 [ 0, %body10 ], [ %i167.next, %latch14 ]
  %t168 = add nuw nsw i64 %t165, %i167
  %t169 = mul nuw nsw i64 %i167, 5
  %t170 = add nuw nsw i64 %t169, 0
  %t171 = getelementptr inbounds float, ptr %acc18, i64 %t170
  %t172 = load <5 x float>, ptr %t171, align 4
  %t173 = add nuw nsw i64 %t168, 0
  %t174 = getelementptr inbounds float, ptr %in0, i64 %t173
  %t175 = load float, ptr %t174
  %t176 = insertelement <5 x float> poison, float %t175, i64 0
  %t177 = shufflevector <5 x float> %t176, <5 x float> poison, <5 x i32> zeroinitializer
  %t178 = load <5 x float>, ptr %acc44
  %t179 = call <5 x float> @llvm.fmuladd.v5f32(<5 x float> %t177, <5 x float> %t172, <5 x float> %t178)
  store <5 x float> %t179, ptr %acc44
  %t180 = add nuw nsw i64 %t168, 4
  %t181 = getelementptr inbounds float, ptr %in0, i64 %t180
  %t182 = load float, ptr %t181
  %t183 = insertelement <5 x float> poison, float %t182, i64 0
  %t184 = shufflevector <5 x float> %t183, <5 x float> poison, <5 x i32> zeroinitializer
  %t185 = load <5 x float>, ptr %acc46
  %t186 = call <5 x float> @llvm.fmuladd.v5f32(<5 x float> %t184, <5 x float> %t172, <5 x float> %t185)
  store <5 x float> %t186, ptr %acc46
  %t187 = add nuw nsw i64 %t168, 8
  %t188 = getelementptr inbounds float, ptr %in0, i64 %t187
  %t189 = load float, ptr %t188
  %t190 = insertelement <5 x float> poison, float %t189, i64 0
  %t191 = shufflevector <5 x float> %t190, <5 x float> poison, <5 x i32> zeroinitializer
  %t192 = load <5 x float>, ptr %acc48
  %t193 = call <5 x float> @llvm.fmuladd.v5f32(<5 x float> %t191, <5 x float> %t172, <5 x float> %t192)
  store <5 x float> %t193, ptr %acc48
  %t194 = add nuw nsw i64 %t168, 12
  %t195 = getelementptr inbounds float, ptr %in0, i64 %t194
  %t196 = load float, ptr %t195
  %t197 = insertelement <5 x float> poison, float %t196, i64 0
  %t198 = shufflevector <5 x float> %t197, <5 x float> poison, <5 x i32> zeroinitializer
  %t199 = load <5 x float>, ptr %acc50
  %t200 = call <5 x float> @llvm.fmuladd.v5f32(<5 x float> %t198, <5 x float> %t172, <5 x float> %t199)
  store <5 x float> %t200, ptr %acc50
  %t201 = add nuw nsw i64 %t168, 16
  %t202 = getelementptr inbounds float, ptr %in0, i64 %t201
  %t203 = load float, ptr %t202
  %t204 = insertelement <5 x float> poison, float %t203, i64 0
  %t205 = shufflevector <5 x float> %t204, <5 x float> poison, <5 x i32> zeroinitializer
  %t206 = load <5 x float>, ptr %acc52
  %t207 = call <5 x float> @llvm.fmuladd.v5f32(<5 x float> %t205, <5 x float> %t172, <5 x float> %t206)
  store <5 x float> %t207, ptr %acc52
  %t208 = add nuw nsw i64 %t168, 20
  %t209 = getelementptr inbounds float, ptr %in0, i64 %t208
  %t210 = load float, ptr %t209
  %t211 = insertelement <5 x float> poison, float %t210, i64 0
  %t212 = shufflevector <5 x float> %t211, <5 x float> poison, <5 x i32> zeroinitializer
  %t213 = load <5 x float>, ptr %acc54
  %t214 = call <5 x float> @llvm.fmuladd.v5f32(<5 x float> %t212, <5 x float> %t172, <5 x float> %t213)
  store <5 x float> %t214, ptr %acc54
  %t215 = add nuw nsw i64 %t168, 24
  %t216 = getelementptr inbounds float, ptr %in0, i64 %t215
  %t217 = load float, ptr %t216
  %t218 = insertelement <5 x float> poison, float %t217, i64 0
  %t219 = shufflevector <5 x float> %t218, <5 x float> poison, <5 x i32> zeroinitializer
  %t220 = load <5 x float>, ptr %acc56
  %t221 = call <5 x float> @llvm.fmuladd.v5f32(<5 x float> %t219, <5 x float> %t172, <5 x float> %t220)
  store <5 x float> %t221, ptr %acc56
  %t222 = add nuw nsw i64 %t168, 28
  %t223 = getelementptr inbounds float, ptr %in0, i64 %t222
  %t224 = load float, ptr %t223
  %t225 = insertelement <5 x float> poison, float %t224, i64 0
  %t226 = shufflevector <5 x float> %t225, <5 x float> poison, <5 x i32> zeroinitializer
  %t227 = load <5 x float>, ptr %acc58
  %t228 = call <5 x float> @llvm.fmuladd.v5f32(<5 x float> %t226, <5 x float> %t172, <5 x float> %t227)
  store <5 x float> %t228, ptr %acc58
  %t229 = add nuw nsw i64 %t168, 32
  %t230 = getelementptr inbounds float, ptr %in0, i64 %t229
  %t231 = load float, ptr %t230
  %t232 = insertelement <5 x float> poison, float %t231, i64 0
  %t233 = shufflevector <5 x float> %t232, <5 x float> poison, <5 x i32> zeroinitializer
  %t234 = load <5 x float>, ptr %acc60
  %t235 = call <5 x float> @llvm.fmuladd.v5f32(<5 x float> %t233, <5 x float> %t172, <5 x float> %t234)
  store <5 x float> %t235, ptr %acc60
  %t236 = add nuw nsw i64 %t168, 36
  %t237 = getelementptr inbounds float, ptr %in0, i64 %t236
  %t238 = load float, ptr %t237
  %t239 = insertelement <5 x float> poison, float %t238, i64 0
  %t240 = shufflevector <5 x float> %t239, <5 x float> poison, <5 x i32> zeroinitializer
  %t241 = load <5 x float>, ptr %acc62
  %t242 = call <5 x float> @llvm.fmuladd.v5f32(<5 x float> %t240, <5 x float> %t172, <5 x float> %t241)
  store <5 x float> %t242, ptr %acc62
  %t243 = add nuw nsw i64 %t168, 40
  %t244 = getelementptr inbounds float, ptr %in0, i64 %t243
  %t245 = load float, ptr %t244
  %t246 = insertelement <5 x float> poison, float %t245, i64 0
  %t247 = shufflevector <5 x float> %t246, <5 x float> poison, <5 x i32> zeroinitializer
  %t248 = load <5 x float>, ptr %acc64
  %t249 = call <5 x float> @llvm.fmuladd.v5f32(<5 x float> %t247, <5 x float> %t172, <5 x float> %t248)
  store <5 x float> %t249, ptr %acc64
  %t250 = add nuw nsw i64 %t168, 44
  %t251 = getelementptr inbounds float, ptr %in0, i64 %t250
  %t252 = load float, ptr %t251
  %t253 = insertelement <5 x float> poison, float %t252, i64 0
  %t254 = shufflevector <5 x float> %t253, <5 x float> poison, <5 x i32> zeroinitializer
  %t255 = load <5 x float>, ptr %acc66
  %t256 = call <5 x float> @llvm.fmuladd.v5f32(<5 x float> %t254, <5 x float> %t172, <5 x float> %t255)
  store <5 x float> %t256, ptr %acc66
  br label %latch14
latch14:
  %i167.next = add nuw nsw i64 %i167, 1
  %t257 = icmp slt i64 %i167.next, %t24
  br i1 %t257, label %body13, label %exit15, !llvm.loop !4
exit15:
  %t258 = load <5 x float>, ptr %acc44
  %t259 = add nuw nsw i64 %t43, 0
  %t260 = mul nuw nsw i64 %t259, 5
  %t261 = add nuw nsw i64 %t5, %t260
  %t262 = add nuw nsw i64 %t261, 0
  %t263 = add nuw nsw i64 %t262, 0
  %t264 = getelementptr inbounds float, ptr %out, i64 %t263
  store <5 x float> %t258, ptr %t264, align 4
  %t265 = load <5 x float>, ptr %acc46
  %t266 = add nuw nsw i64 %t43, 1
  %t267 = mul nuw nsw i64 %t266, 5
  %t268 = add nuw nsw i64 %t5, %t267
  %t269 = add nuw nsw i64 %t268, 0
  %t270 = add nuw nsw i64 %t269, 0
  %t271 = getelementptr inbounds float, ptr %out, i64 %t270
  store <5 x float> %t265, ptr %t271, align 4
  %t272 = load <5 x float>, ptr %acc48
  %t273 = add nuw nsw i64 %t43, 2
  %t274 = mul nuw nsw i64 %t273, 5
  %t275 = add nuw nsw i64 %t5, %t274
  %t276 = add nuw nsw i64 %t275, 0
  %t277 = add nuw nsw i64 %t276, 0
  %t278 = getelementptr inbounds float, ptr %out, i64 %t277
  store <5 x float> %t272, ptr %t278, align 4
  %t279 = load <5 x float>, ptr %acc50
  %t280 = add nuw nsw i64 %t43, 3
  %t281 = mul nuw nsw i64 %t280, 5
  %t282 = add nuw nsw i64 %t5, %t281
  %t283 = add nuw nsw i64 %t282, 0
  %t284 = add nuw nsw i64 %t283, 0
  %t285 = getelementptr inbounds float, ptr %out, i64 %t284
  store <5 x float> %t279, ptr %t285, align 4
  %t286 = load <5 x float>, ptr %acc52
  %t287 = add nuw nsw i64 %t43, 4
  %t288 = mul nuw nsw i64 %t287, 5
  %t289 = add nuw nsw i64 %t5, %t288
  %t290 = add nuw nsw i64 %t289, 0
  %t291 = add nuw nsw i64 %t290, 0
  %t292 = getelementptr inbounds float, ptr %out, i64 %t291
  store <5 x float> %t286, ptr %t292, align 4
  %t293 = load <5 x float>, ptr %acc54
  %t294 = add nuw nsw i64 %t43, 5
  %t295 = mul nuw nsw i64 %t294, 5
  %t296 = add nuw nsw i64 %t5, %t295
  %t297 = add nuw nsw i64 %t296, 0
  %t298 = add nuw nsw i64 %t297, 0
  %t299 = getelementptr inbounds float, ptr %out, i64 %t298
  store <5 x float> %t293, ptr %t299, align 4
  %t300 = load <5 x float>, ptr %acc56
  %t301 = add nuw nsw i64 %t43, 6
  %t302 = mul nuw nsw i64 %t301, 5
  %t303 = add nuw nsw i64 %t5, %t302
  %t304 = add nuw nsw i64 %t303, 0
  %t305 = add nuw nsw i64 %t304, 0
  %t306 = getelementptr inbounds float, ptr %out, i64 %t305
  store <5 x float> %t300, ptr %t306, align 4
  %t307 = load <5 x float>, ptr %acc58
  %t308 = add nuw nsw i64 %t43, 7
  %t309 = mul nuw nsw i64 %t308, 5
  %t310 = add nuw nsw i64 %t5, %t309
  %t311 = add nuw nsw i64 %t310, 0
  %t312 = add nuw nsw i64 %t311, 0
  %t313 = getelementptr inbounds float, ptr %out, i64 %t312
  store <5 x float> %t307, ptr %t313, align 4
  %t314 = load <5 x float>, ptr %acc60
  %t315 = add nuw nsw i64 %t43, 8
  %t316 = mul nuw nsw i64 %t315, 5
  %t317 = add nuw nsw i64 %t5, %t316
  %t318 = add nuw nsw i64 %t317, 0
  %t319 = add nuw nsw i64 %t318, 0
  %t320 = getelementptr inbounds float, ptr %out, i64 %t319
  store <5 x float> %t314, ptr %t320, align 4
  %t321 = load <5 x float>, ptr %acc62
  %t322 = add nuw nsw i64 %t43, 9
  %t323 = mul nuw nsw i64 %t322, 5
  %t324 = add nuw nsw i64 %t5, %t323
  %t325 = add nuw nsw i64 %t324, 0
  %t326 = add nuw nsw i64 %t325, 0
  %t327 = getelementptr inbounds float, ptr %out, i64 %t326
  store <5 x float> %t321, ptr %t327, align 4
  %t328 = load <5 x float>, ptr %acc64
  %t329 = add nuw nsw i64 %t43, 10
  %t330 = mul nuw nsw i64 %t329, 5
  %t331 = add nuw nsw i64 %t5, %t330
  %t332 = add nuw nsw i64 %t331, 0
  %t333 = add nuw nsw i64 %t332, 0
  %t334 = getelementptr inbounds float, ptr %out, i64 %t333
  store <5 x float> %t328, ptr %t334, align 4
  %t335 = load <5 x float>, ptr %acc66
  %t336 = add nuw nsw i64 %t43, 11
  %t337 = mul nuw nsw i64 %t336, 5
  %t338 = add nuw nsw i64 %t5, %t337
  %t339 = add nuw nsw i64 %t338, 0
  %t340 = add nuw nsw i64 %t339, 0
  %t341 = getelementptr inbounds float, ptr %out, i64 %t340
  store <5 x float> %t335, ptr %t341, align 4
  br label %latch11
latch11:
  %i41.next = add nuw nsw i64 %i41, 1
  %t342 = icmp slt i64 %i41.next, %t16
  br i1 %t342, label %body10, label %exit12, !llvm.loop !7
exit12:
  br i1 %t9, label %part16, label %nopart17
part16:
  %t343 = add nuw nsw i64 %t8, %t17
  %t344 = add nuw nsw i64 %t343, 0
  %t345 = mul nuw nsw i64 %t344, 5
  %t346 = add nuw nsw i64 %t5, %t345
  %t347 = add nuw nsw i64 %t346, 0
  %t348 = add nuw nsw i64 %t347, 0
  %t349 = getelementptr inbounds float, ptr %out, i64 %t348
  %t350 = load <5 x float>, ptr %t349, align 4
  %t351 = select i1 %t25, <5 x float> zeroinitializer, <5 x float> %t350
  store <5 x float> %t351, ptr %acc44
  %t352 = add nuw nsw i64 %t343, 1
  %t353 = mul nuw nsw i64 %t352, 5
  %t354 = add nuw nsw i64 %t5, %t353
  %t355 = add nuw nsw i64 %t354, 0
  %t356 = add nuw nsw i64 %t355, 0
  %t357 = getelementptr inbounds float, ptr %out, i64 %t356
  %t358 = load <5 x float>, ptr %t357, align 4
  %t359 = select i1 %t25, <5 x float> zeroinitializer, <5 x float> %t358
  store <5 x float> %t359, ptr %acc46
  %t360 = add nuw nsw i64 %t343, 2
  %t361 = mul nuw nsw i64 %t360, 5
  %t362 = add nuw nsw i64 %t5, %t361
  %t363 = add nuw nsw i64 %t362, 0
  %t364 = add nuw nsw i64 %t363, 0
  %t365 = getelementptr inbounds float, ptr %out, i64 %t364
  %t366 = load <5 x float>, ptr %t365, align 4
  %t367 = select i1 %t25, <5 x float> zeroinitializer, <5 x float> %t366
  store <5 x float> %t367, ptr %acc48
  %t368 = mul nuw nsw i64 %t343, 4
  %t369 = add nuw nsw i64 %t3, %t368
  %t370 = icmp slt i64 0, %t24
  br i1 %t370, label %body18, label %exit20
body18:
  %i371 = phi i64 [ 0, %part16 ], [ %i371.next, %latch19 ]
  %t372 = add nuw nsw i64 %t369, %i371
  %t373 = mul nuw nsw i64 %i371, 5
  %t374 = add nuw nsw i64 %t373, 0
  %t375 = getelementptr inbounds float, ptr %acc18, i64 %t374
  %t376 = load <5 x float>, ptr %t375, align 4
  %t377 = add nuw nsw i64 %t372, 0
  %t378 = getelementptr inbounds float, ptr %in0, i64 %t377
  %t379 = load float, ptr %t378
  %t380 = insertelement <5 x float> poison, float %t379, i64 0
  %t381 = shufflevector <5 x float> %t380, <5 x float> poison, <5 x i32> zeroinitializer
  %t382 = load <5 x float>, ptr %acc44
  %t383 = call <5 x float> @llvm.fmuladd.v5f32(<5 x float> %t381, <5 x float> %t376, <5 x float> %t382)
  store <5 x float> %t383, ptr %acc44
  %t384 = add nuw nsw i64 %t372, 4
  %t385 = getelementptr inbounds float, ptr %in0, i64 %t384
  %t386 = load float, ptr %t385
  %t387 = insertelement <5 x float> poison, float %t386, i64 0
  %t388 = shufflevector <5 x float> %t387, <5 x float> poison, <5 x i32> zeroinitializer
  %t389 = load <5 x float>, ptr %acc46
  %t390 = call <5 x float> @llvm.fmuladd.v5f32(<5 x float> %t388, <5 x float> %t376, <5 x float> %t389)
  store <5 x float> %t390, ptr %acc46
  %t391 = add nuw nsw i64 %t372, 8
  %t392 = getelementptr inbounds float, ptr %in0, i64 %t391
  %t393 = load float, ptr %t392
  %t394 = insertelement <5 x float> poison, float %t393, i64 0
  %t395 = shufflevector <5 x float> %t394, <5 x float> poison, <5 x i32> zeroinitializer
  %t396 = load <5 x float>, ptr %acc48
  %t397 = call <5 x float> @llvm.fmuladd.v5f32(<5 x float> %t395, <5 x float> %t376, <5 x float> %t396)
  store <5 x float> %t397, ptr %acc48
  br label %latch19
latch19:
  %i371.next = add nuw nsw i64 %i371, 1
  %t398 = icmp slt i64 %i371.next, %t24
  br i1 %t398, label %body18, label %exit20, !llvm.loop !10
exit20:
  %t399 = load <5 x float>, ptr %acc44
  %t400 = add nuw nsw i64 %t343, 0
  %t401 = mul nuw nsw i64 %t400, 5
  %t402 = add nuw nsw i64 %t5, %t401
  %t403 = add nuw nsw i64 %t402, 0
  %t404 = add nuw nsw i64 %t403, 0
  %t405 = getelementptr inbounds float, ptr %out, i64 %t404
  store <5 x float> %t399, ptr %t405, align 4
  %t406 = load <5 x float>, ptr %acc46
  %t407 = add nuw nsw i64 %t343, 1
  %t408 = mul nuw nsw i64 %t407, 5
  %t409 = add nuw nsw i64 %t5, %t408
  %t410 = add nuw nsw i64 %t409, 0
  %t411 = add nuw nsw i64 %t410, 0
  %t412 = getelementptr inbounds float, ptr %out, i64 %t411
  store <5 x float> %t406, ptr %t412, align 4
  %t413 = load <5 x float>, ptr %acc48
  %t414 = add nuw nsw i64 %t343, 2
  %t415 = mul nuw nsw i64 %t414, 5
  %t416 = add nuw nsw i64 %t5, %t415
  %t417 = add nuw nsw i64 %t416, 0
  %t418 = add nuw nsw i64 %t417, 0
  %t419 = getelementptr inbounds float, ptr %out, i64 %t418
  store <5 x float> %t413, ptr %t419, align 4
  br label %nopart17
nopart17:
  br label %latch5
latch5:
  %i20.next = add nuw nsw i64 %i20, 1
  %t420 = icmp slt i64 %i20.next, 1
  br i1 %t420, label %body4, label %exit6, !llvm.loop !13
exit6:
  br label %latch2
latch2:
  %i2.next = add nuw nsw i64 %i2, 1
  %t421 = icmp slt i64 %i2.next, %end
  br i1 %t421, label %body1, label %exit3, !llvm.loop !16
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
  br i1 %t10, label %body1, label %exit3, !llvm.loop !19
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
  br i1 %t11, label %body1, label %exit3, !llvm.loop !21
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

declare <5 x float> @llvm.fmuladd.v5f32(<5 x float>, <5 x float>, <5 x float>)
declare float @llvm.maxnum.f32(float, float)
declare float @llvm.minnum.f32(float, float)

!0 = !{i32 1}
!1 = distinct !{!1, !2, !3} ; done
!2 = !{!"llvm.loop.vectorize.enable", i1 false}
!3 = !{!"llvm.loop.unroll.disable"}
!4 = distinct !{!4, !5, !6} ; done
!5 = !{!"llvm.loop.vectorize.enable", i1 false}
!6 = !{!"llvm.loop.unroll.disable"}
!7 = distinct !{!7, !8, !9} ; done
!8 = !{!"llvm.loop.vectorize.enable", i1 false}
!9 = !{!"llvm.loop.unroll.disable"}
!10 = distinct !{!10, !11, !12} ; done
!11 = !{!"llvm.loop.vectorize.enable", i1 false}
!12 = !{!"llvm.loop.unroll.disable"}
!13 = distinct !{!13, !14, !15} ; done
!14 = !{!"llvm.loop.vectorize.enable", i1 false}
!15 = !{!"llvm.loop.unroll.disable"}
!16 = distinct !{!16, !17, !18} ; done
!17 = !{!"llvm.loop.vectorize.enable", i1 false}
!18 = !{!"llvm.loop.unroll.disable"}
!19 = distinct !{!19, !20}
!20 = !{!"llvm.loop.unroll.disable"}
!21 = distinct !{!21, !22}
!22 = !{!"llvm.loop.unroll.disable"}

attributes #0 = { nounwind }
attributes #1 = { nounwind noinline "prefer-vector-width"="512" }
