;; MotorNerve's one kernel: y = W x + b in float32 with 128-bit WebAssembly SIMD.
;;
;; affine(w, b, x, y, rows, cols): W [rows, cols] row-major (PyTorch's [out, in]), b [rows],
;; x [cols], y [rows] (written); every argument after the matrix's is a byte address in
;; the exported memory, rows and cols are counts. Four rows at a time share each load of
;; x; each row sums four lanes (columns c, c+4, c+8, ... in lane c mod 4) and adds them as
;; (l0 + l1) + (l2 + l3), then the columns past the last multiple of four one by one,
;; then the bias: float32 throughout, as numpy's float32 products sum (in another order:
;; the two agree to about 1e-6 relative per product).
;;
;; Compiled by scripts/build-affine-wasm (wasmtime's wat2wasm) into affine-wasm.js, which
;; network.js instantiates; tests/webapp/test_affine_wasm.py checks the bytes and the
;; arithmetic against numpy.
(module
  (memory (export "memory") 1)

  ;; The sum of a row's four lanes: (l0 + l1) + (l2 + l3).
  (func $lanes (param $v v128) (result f32)
    (f32.add
      (f32.add (f32x4.extract_lane 0 (local.get $v)) (f32x4.extract_lane 1 (local.get $v)))
      (f32.add (f32x4.extract_lane 2 (local.get $v)) (f32x4.extract_lane 3 (local.get $v)))))

  ;; One row: Σ over the columns (bytes [0, vec) by fours, then [vec, end) one by one).
  (func $row (param $w i32) (param $x i32) (param $vec i32) (param $end i32) (result f32)
    (local $c i32) (local $acc v128) (local $sum f32)
    (block $done
      (loop $four
        (br_if $done (i32.ge_u (local.get $c) (local.get $vec)))
        (local.set $acc
          (f32x4.add (local.get $acc)
            (f32x4.mul
              (v128.load (i32.add (local.get $w) (local.get $c)))
              (v128.load (i32.add (local.get $x) (local.get $c))))))
        (local.set $c (i32.add (local.get $c) (i32.const 16)))
        (br $four)))
    (local.set $sum (call $lanes (local.get $acc)))
    (block $rest
      (loop $one
        (br_if $rest (i32.ge_u (local.get $c) (local.get $end)))
        (local.set $sum
          (f32.add (local.get $sum)
            (f32.mul
              (f32.load (i32.add (local.get $w) (local.get $c)))
              (f32.load (i32.add (local.get $x) (local.get $c))))))
        (local.set $c (i32.add (local.get $c) (i32.const 4)))
        (br $one)))
    (local.get $sum))

  (func (export "affine")
    (param $w i32) (param $b i32) (param $x i32) (param $y i32) (param $rows i32) (param $cols i32)
    (local $r i32) (local $stride i32) (local $vec i32) (local $c i32)
    (local $w0 i32) (local $w1 i32) (local $w2 i32) (local $w3 i32)
    (local $a0 v128) (local $a1 v128) (local $a2 v128) (local $a3 v128) (local $xv v128)
    (local $s0 f32) (local $s1 f32) (local $s2 f32) (local $s3 f32) (local $xs f32)
    (local.set $stride (i32.shl (local.get $cols) (i32.const 2)))
    (local.set $vec (i32.shl (i32.and (local.get $cols) (i32.const -4)) (i32.const 2)))
    ;; four rows at a time
    (block $blocks_done
      (loop $block
        (br_if $blocks_done (i32.gt_u (i32.add (local.get $r) (i32.const 4)) (local.get $rows)))
        (local.set $w0 (i32.add (local.get $w) (i32.mul (local.get $r) (local.get $stride))))
        (local.set $w1 (i32.add (local.get $w0) (local.get $stride)))
        (local.set $w2 (i32.add (local.get $w1) (local.get $stride)))
        (local.set $w3 (i32.add (local.get $w2) (local.get $stride)))
        (local.set $a0 (v128.const i32x4 0 0 0 0))
        (local.set $a1 (v128.const i32x4 0 0 0 0))
        (local.set $a2 (v128.const i32x4 0 0 0 0))
        (local.set $a3 (v128.const i32x4 0 0 0 0))
        (local.set $c (i32.const 0))
        (block $four_done
          (loop $four
            (br_if $four_done (i32.ge_u (local.get $c) (local.get $vec)))
            (local.set $xv (v128.load (i32.add (local.get $x) (local.get $c))))
            (local.set $a0 (f32x4.add (local.get $a0)
              (f32x4.mul (v128.load (i32.add (local.get $w0) (local.get $c))) (local.get $xv))))
            (local.set $a1 (f32x4.add (local.get $a1)
              (f32x4.mul (v128.load (i32.add (local.get $w1) (local.get $c))) (local.get $xv))))
            (local.set $a2 (f32x4.add (local.get $a2)
              (f32x4.mul (v128.load (i32.add (local.get $w2) (local.get $c))) (local.get $xv))))
            (local.set $a3 (f32x4.add (local.get $a3)
              (f32x4.mul (v128.load (i32.add (local.get $w3) (local.get $c))) (local.get $xv))))
            (local.set $c (i32.add (local.get $c) (i32.const 16)))
            (br $four)))
        (local.set $s0 (call $lanes (local.get $a0)))
        (local.set $s1 (call $lanes (local.get $a1)))
        (local.set $s2 (call $lanes (local.get $a2)))
        (local.set $s3 (call $lanes (local.get $a3)))
        (block $rest_done
          (loop $rest
            (br_if $rest_done (i32.ge_u (local.get $c) (local.get $stride)))
            (local.set $xs (f32.load (i32.add (local.get $x) (local.get $c))))
            (local.set $s0 (f32.add (local.get $s0)
              (f32.mul (f32.load (i32.add (local.get $w0) (local.get $c))) (local.get $xs))))
            (local.set $s1 (f32.add (local.get $s1)
              (f32.mul (f32.load (i32.add (local.get $w1) (local.get $c))) (local.get $xs))))
            (local.set $s2 (f32.add (local.get $s2)
              (f32.mul (f32.load (i32.add (local.get $w2) (local.get $c))) (local.get $xs))))
            (local.set $s3 (f32.add (local.get $s3)
              (f32.mul (f32.load (i32.add (local.get $w3) (local.get $c))) (local.get $xs))))
            (local.set $c (i32.add (local.get $c) (i32.const 4)))
            (br $rest)))
        (call $store (local.get $b) (local.get $y) (local.get $r) (local.get $s0))
        (call $store (local.get $b) (local.get $y) (i32.add (local.get $r) (i32.const 1)) (local.get $s1))
        (call $store (local.get $b) (local.get $y) (i32.add (local.get $r) (i32.const 2)) (local.get $s2))
        (call $store (local.get $b) (local.get $y) (i32.add (local.get $r) (i32.const 3)) (local.get $s3))
        (local.set $r (i32.add (local.get $r) (i32.const 4)))
        (br $block)))
    ;; the rows left over, one at a time
    (block $rows_done
      (loop $single
        (br_if $rows_done (i32.ge_u (local.get $r) (local.get $rows)))
        (call $store (local.get $b) (local.get $y) (local.get $r)
          (call $row
            (i32.add (local.get $w) (i32.mul (local.get $r) (local.get $stride)))
            (local.get $x) (local.get $vec) (local.get $stride)))
        (local.set $r (i32.add (local.get $r) (i32.const 1)))
        (br $single))))

  ;; y[r] = sum + b[r]
  (func $store (param $b i32) (param $y i32) (param $r i32) (param $sum f32)
    (local $at i32)
    (local.set $at (i32.shl (local.get $r) (i32.const 2)))
    (f32.store (i32.add (local.get $y) (local.get $at))
      (f32.add (local.get $sum) (f32.load (i32.add (local.get $b) (local.get $at)))))))
