! The Fortran module on the CPU executor: 2-D transposes of real(4), real(8), complex(4) and complex(8) against
! the intrinsic transpose, every permutation of ranks 3 and 4 against loops written from the definition in
! src/fortran/xpose.f90 (and rank 3 against the intrinsic reshape with order=), plans, in-place transposes,
! and the errors: the module's own (perm, shape, m) and the library's passed through, each by status and by
! the argument its message names. Fixed inputs. Prints each failed check; exits non-zero if any failed.
program test_fortran
  use, intrinsic :: iso_c_binding, only: c_int64_t, c_ptr, c_null_ptr, c_loc, c_associated
  use xpose
  implicit none
  integer :: checks = 0, failures = 0

  call test_names()
  call test_transposes()
  call test_permutations_rank3()
  call test_permutations_rank4()
  call test_plans_and_raw_calls()
  call test_inplace()
  call test_errors()
  print '(a, a, a, i0, a, i0, a)', 'test_fortran (xpose ', xpose_version(), '): ', checks, ' checks, ', &
    failures, ' failed'
  if (failures /= 0) error stop 1

contains

  subroutine check(ok, what)
    logical, intent(in) :: ok
    character(len=*), intent(in) :: what
    checks = checks + 1
    if (.not. ok) then
      failures = failures + 1
      print '(4a)', 'FAILED: ', what, '; last message: ', xpose_error_message()
    end if
  end subroutine

  ! `status` must be `want` and the last message must contain `needle`.
  subroutine expect_status(status, want, needle, what)
    integer, intent(in) :: status, want
    character(len=*), intent(in) :: needle, what
    character(len=:), allocatable :: message
    message = xpose_error_message()
    checks = checks + 1
    if (status /= want .or. index(message, needle) == 0) then
      failures = failures + 1
      print '(7a)', 'FAILED: ', what, ': got ', xpose_status_name(status), ' "', message, '"'
      print '(5a)', '        want ', xpose_status_name(want), ' naming "', needle, '"'
    end if
  end subroutine

  subroutine test_names()
    call check(xpose_status_name(XPOSE_SUCCESS) == 'success', 'status name of XPOSE_SUCCESS')
    call check(xpose_status_name(XPOSE_INVALID_ARGUMENT) == 'invalid_argument', 'status name of 1')
    call check(xpose_status_name(XPOSE_INTERNAL) == 'internal', 'status name of 6')
    call check(xpose_status_name(99) == 'unknown', 'status name of 99')
    call check(len(xpose_version()) >= 5, 'version string')
  end subroutine

  ! ---- 2-D transposes: b(n, m) = transpose(a(m, n)) ----------------------------------------------------------

  subroutine test_transposes()
    real(4) :: a4(37, 53), b4(53, 37), s4(53, 19)
    real(8) :: a8(37, 53), b8(53, 37)
    complex(4) :: c4(19, 7), d4(7, 19)
    complex(8) :: c8(19, 7), d8(7, 19)
    integer :: i, j, status
    do j = 1, 53
      do i = 1, 37
        a4(i, j) = real(i + 100 * j, 4)
        a8(i, j) = real(i, 8) + 0.001d0 * j
      end do
    end do
    do j = 1, 7
      do i = 1, 19
        c4(i, j) = cmplx(i, -j, kind=4)
        c8(i, j) = cmplx(i * 0.5d0, j * 1000, kind=8)
      end do
    end do

    b4 = -1
    call xpose_transpose_host_f(a4, b4, 37, 53, storage_size(a4) / 8, status)
    call expect_status(status, XPOSE_SUCCESS, '', 'real(4) transpose')
    call check(all(b4 == transpose(a4)), 'real(4) 37 x 53 transpose')
    call check(xpose_error_message() == '', 'the message is empty after a success')

    ! 64-bit extents and 2 threads.
    b8 = -1
    call xpose_transpose_host_f(a8, b8, 37_c_int64_t, 53_c_int64_t, storage_size(a8) / 8, status, threads=2)
    call expect_status(status, XPOSE_SUCCESS, '', 'real(8) transpose')
    call check(all(b8 == transpose(a8)), 'real(8) 37 x 53 transpose')

    call xpose_transpose_host_f(c4, d4, 19, 7, storage_size(c4) / 8, status)
    call expect_status(status, XPOSE_SUCCESS, '', 'complex(4) transpose')
    call check(all(d4 == transpose(c4)), 'complex(4) 19 x 7 transpose (8-byte elements)')

    call xpose_transpose_host_f(c8, d8, 19, 7, storage_size(c8) / 8, status)
    call expect_status(status, XPOSE_SUCCESS, '', 'complex(8) transpose')
    call check(all(d8 == transpose(c8)), 'complex(8) 19 x 7 transpose (16-byte elements)')

    ! A non-contiguous section is copied in by the compiler: the result is still the section's transpose.
    call xpose_transpose_host_f(a4(1:37:2, :), s4, 19, 53, 4, status)
    call expect_status(status, XPOSE_SUCCESS, '', 'transpose of a strided section')
    call check(all(s4 == transpose(a4(1:37:2, :))), 'transpose of a(1:37:2, :)')

    ! perm = [1, 2] is a copy, [2, 1] the transpose.
    b4 = -1
    call xpose_permute_host_f(transpose(a4), b4, [53, 37], [1, 2], 4, status)
    call expect_status(status, XPOSE_SUCCESS, '', 'permute [1, 2]')
    call check(all(b4 == transpose(a4)), 'permute with perm [1, 2] copies')
    ! perm = [2, 1] is the transpose.
    b8 = -1
    call xpose_permute_host_f(a8, b8, [37, 53], [2, 1], 8, status)
    call expect_status(status, XPOSE_SUCCESS, '', 'permute [2, 1]')
    call check(all(b8 == transpose(a8)), 'permute with perm [2, 1] equals transpose')
  end subroutine

  ! ---- N-d permutations: b(j) = a(i) with i(perm(k)) = j(k) ------------------------------------------------

  subroutine test_permutations_rank3()
    integer :: a(4, 3, 5), q(3), perm(3), e(3), i(3), status, p1, p2, p3, k, j1, j2, j3
    integer, allocatable :: b(:, :, :)
    logical :: loops_agree
    character(len=64) :: what
    a = reshape([(k * 7 + 1, k = 1, size(a))], shape(a))
    do p1 = 1, 3
      do p2 = 1, 3
        do p3 = 1, 3
          if (p1 == p2 .or. p1 == p3 .or. p2 == p3) cycle
          perm = [p1, p2, p3]
          e = shape(a)
          e = e(perm)
          allocate(b(e(1), e(2), e(3)))
          b = -1
          write(what, '(a, 3i2, a)') 'rank 3 perm [', perm, ']'
          call xpose_permute_host_f(a, b, shape(a), perm, storage_size(a) / 8, status)
          call expect_status(status, XPOSE_SUCCESS, '', trim(what))
          loops_agree = .true.
          do j3 = 1, e(3)
            do j2 = 1, e(2)
              do j1 = 1, e(1)
                i(perm) = [j1, j2, j3]
                if (b(j1, j2, j3) /= a(i(1), i(2), i(3))) loops_agree = .false.
              end do
            end do
          end do
          call check(loops_agree, trim(what) // ' against loops')
          q(perm) = [1, 2, 3]  ! the inverse permutation: reshape fills the result in subscript order q
          call check(all(b == reshape(a, e, order=q)), trim(what) // ' against reshape(a, shape, order)')
          deallocate(b)
        end do
      end do
    end do
  end subroutine

  subroutine test_permutations_rank4()
    real(8) :: a(2, 3, 4, 5)
    real(8), allocatable :: b(:, :, :, :)
    integer :: perm(4), e(4), i(4), status, p1, p2, p3, p4, k, tried, j1, j2, j3, j4
    logical :: agree
    character(len=64) :: what
    a = reshape([(real(k, 8) * 1.5d0, k = 1, size(a))], shape(a))
    tried = 0
    do p1 = 1, 4
      do p2 = 1, 4
        do p3 = 1, 4
          do p4 = 1, 4
            perm = [p1, p2, p3, p4]
            if (any([(count(perm == k) /= 1, k = 1, 4)])) cycle
            tried = tried + 1
            e = shape(a)
            e = e(perm)
            allocate(b(e(1), e(2), e(3), e(4)))
            write(what, '(a, 4i2, a)') 'rank 4 perm [', perm, ']'
            call xpose_permute_host_f(a, b, int(shape(a), c_int64_t), perm, 8, status)
            call expect_status(status, XPOSE_SUCCESS, '', trim(what))
            agree = .true.
            do j4 = 1, e(4)
              do j3 = 1, e(3)
                do j2 = 1, e(2)
                  do j1 = 1, e(1)
                    i(perm) = [j1, j2, j3, j4]
                    if (b(j1, j2, j3, j4) /= a(i(1), i(2), i(3), i(4))) agree = .false.
                  end do
                end do
              end do
            end do
            call check(agree, trim(what) // ' against loops')
            deallocate(b)
          end do
        end do
      end do
    end do
    call check(tried == 24, 'all 24 permutations of rank 4 tried')
  end subroutine

  ! ---- plans and the raw C interfaces ---------------------------------------------------------------------

  subroutine test_plans_and_raw_calls()
    integer, target :: a(4, 3, 5), b(5, 4, 3)
    real(4), target :: x(3, 4), y(4, 3)
    type(c_ptr) :: plan
    character(len=:), allocatable :: text
    integer(c_int64_t) :: bytes
    integer :: status, k, i1, i2, i3
    logical :: agree
    a = reshape([(k, k = 1, size(a))], shape(a))
    ! perm [3, 1, 2]: b(j1, j2, j3) = a(j2, j3, j1). Row-major: shape [5, 3, 4], axes_c(k) = 3 - perm(3 - k).
    call xpose_plan_create_f(plan, shape(a), [3, 1, 2], 4, status)
    call expect_status(status, XPOSE_SUCCESS, '', 'xpose_plan_create_f')
    text = xpose_describe_f(plan)
    call check(index(text, 'xpose::plan') == 1, 'describe starts with xpose::plan: ' // text)
    call check(index(text, 'shape [5, 3, 4] axes [1, 2, 0] elem_bytes 4') > 0, &
               'the plan is the row-major problem of the derivation: ' // text)
    call xpose_plan_execute_host_f(plan, a, b, status, threads=1)
    call expect_status(status, XPOSE_SUCCESS, '', 'xpose_plan_execute_host_f')
    agree = .true.
    do i3 = 1, 5
      do i2 = 1, 3
        do i1 = 1, 4
          if (b(i3, i1, i2) /= a(i1, i2, i3)) agree = .false.
        end do
      end do
    end do
    call check(agree, 'plan [3, 1, 2] output')
    status = xpose_plan_bytes_moved(plan, bytes)
    call expect_status(status, XPOSE_SUCCESS, '', 'xpose_plan_bytes_moved')
    call check(bytes == 2 * 60 * 4, 'bytes_moved of the 60-element int32 permutation')
    ! The raw interface on the same plan, with c_loc (row-major semantics, same memory).
    b = -1
    status = xpose_plan_execute_host(plan, c_loc(a), c_loc(b), 0)
    call expect_status(status, XPOSE_SUCCESS, '', 'raw xpose_plan_execute_host')
    call check(b(5, 4, 3) == a(4, 3, 5) .and. b(1, 2, 1) == a(2, 1, 1), 'raw execute output')
    call xpose_plan_destroy(plan)

    ! Raw transpose: x(3, 4) is the row-major 4 x 3 matrix.
    x = reshape([(real(k), k = 1, 12)], shape(x))
    status = xpose_transpose_host(c_loc(x), c_loc(y), 4_c_int64_t, 3_c_int64_t, 4_c_int64_t, 0)
    call expect_status(status, XPOSE_SUCCESS, '', 'raw xpose_transpose_host')
    call check(all(y == transpose(x)), 'raw xpose_transpose_host output')
  end subroutine

  ! ---- in place ----------------------------------------------------------------------------------------------

  subroutine test_inplace()
    real(4) :: buf(5 * 7), before(5, 7)
    real(8) :: sq(6, 6), sq_before(6, 6)
    integer :: k, status
    buf = [(real(k, 4), k = 1, size(buf))]
    before = reshape(buf, [5, 7])
    call xpose_transpose_inplace_host_f(buf, 5, 7, 4, status)
    call expect_status(status, XPOSE_SUCCESS, '', 'in place 5 x 7')
    call check(all(reshape(buf, [7, 5]) == transpose(before)), 'in place: the memory of a(5, 7) holds b(7, 5)')
    sq = reshape([(real(k, 8), k = 1, size(sq))], shape(sq))
    sq_before = sq
    call xpose_transpose_inplace_host_f(sq, 6_c_int64_t, 6_c_int64_t, 8, status, threads=2)
    call expect_status(status, XPOSE_SUCCESS, '', 'in place 6 x 6')
    call check(all(sq == transpose(sq_before)), 'in place square 6 x 6')
  end subroutine

  ! ---- errors ----------------------------------------------------------------------------------------------

  subroutine test_errors()
    real(4), target :: x(3, 4), y(4, 3)
    real(4) :: z(2, 3, 4), w(24)
    type(c_ptr) :: plan
    integer :: status
    x = 1
    y = 0
    z = 0
    w = 0
    ! The module's own checks, in Fortran's terms.
    call xpose_permute_host_f(z, w, [2, 3, 4], [1, 1, 3], 4, status)
    call expect_status(status, XPOSE_INVALID_ARGUMENT, 'perm(2) = 1 repeats perm(1)', 'repeated perm entry')
    call xpose_permute_host_f(z, w, [2, 3, 4], [1, 4, 2], 4, status)
    call expect_status(status, XPOSE_INVALID_ARGUMENT, 'perm(2) = 4 is out of range 1..3', 'perm out of range')
    call xpose_permute_host_f(z, w, [2, 3, 4], [2, 1], 4, status)
    call expect_status(status, XPOSE_INVALID_ARGUMENT, 'perm has 2 entries but shape has 3', 'perm too short')
    call xpose_permute_host_f(z, w, [2, -3, 4], [3, 2, 1], 4, status)
    call expect_status(status, XPOSE_INVALID_ARGUMENT, 'shape(2) = -3 is negative', 'negative extent')
    call xpose_transpose_host_f(x, y, -2, 4, 4, status)
    call expect_status(status, XPOSE_INVALID_ARGUMENT, 'm = -2 is negative', 'negative m')
    call xpose_transpose_inplace_host_f(x, 3, -4, 4, status)
    call expect_status(status, XPOSE_INVALID_ARGUMENT, 'n = -4 is negative', 'negative n in place')
    call xpose_plan_create_f(plan, [3, 4], [2, 2], 4, status)
    call expect_status(status, XPOSE_INVALID_ARGUMENT, 'perm(2) = 2 repeats perm(1)', 'plan with a bad perm')
    call check(.not. c_associated(plan), 'a failed xpose_plan_create_f leaves the plan null')

    ! The library's errors pass through with its messages.
    call xpose_transpose_host_f(x, y, 3, 4, 0, status)
    call expect_status(status, XPOSE_INVALID_ARGUMENT, 'elem_bytes = 0', 'elem_bytes 0')
    call xpose_transpose_host_f(x, y, 3, 4, 4, status, threads=-1)
    call expect_status(status, XPOSE_INVALID_ARGUMENT, 'threads = -1 is negative', 'negative threads')
    call xpose_permute_host_f(x, y, [1, 1, 1, 1, 1, 1, 1, 3, 4], [1, 2, 3, 4, 5, 6, 7, 9, 8], 4, status)
    call expect_status(status, XPOSE_INVALID_ARGUMENT, 'shape has 9 axes', 'rank 9')
    status = xpose_plan_execute_host(c_null_ptr, c_loc(x), c_loc(y), 0)
    call expect_status(status, XPOSE_INVALID_ARGUMENT, 'plan is null', 'raw execute of a null plan')
    call check(all(y == 0), 'failed calls leave the output untouched')

    ! GPU calls given host memory fail with a status: unsupported without CUDA; in a CUDA build the pointer
    ! check refuses host memory, or the CUDA pointer query fails on a machine without a usable device.
    call xpose_transpose_f(c_loc(x), c_loc(y), 3, 4, 4, status)
    call check(any(status == [XPOSE_UNSUPPORTED, XPOSE_INVALID_ARGUMENT, XPOSE_CUDA_ERROR]) .and. &
               len(xpose_error_message()) > 0, 'xpose_transpose_f on host memory: ' // xpose_status_name(status))
    call xpose_permute_f(c_loc(x), c_loc(y), [3, 4], [2, 1], 4, status, stream=XPOSE_DEFAULT_STREAM)
    call check(any(status == [XPOSE_UNSUPPORTED, XPOSE_INVALID_ARGUMENT, XPOSE_CUDA_ERROR]) .and. &
               len(xpose_error_message()) > 0, 'xpose_permute_f on host memory: ' // xpose_status_name(status))
    call check(all(y == 0), 'refused GPU calls leave the output untouched')
  end subroutine

end program test_fortran
