! xpose — the Fortran module: the C API (include/xpose/xpose.h) through iso_c_binding, and wrappers that take
! Fortran arrays, Fortran-order extents and 1-based permutations.
!
!   use xpose
!   real :: a(1000, 300), b(300, 1000)
!   integer :: status
!   call xpose_transpose_host_f(a, b, 1000, 300, storage_size(a) / 8, status)   ! b = transpose(a), CPU
!   if (status /= XPOSE_SUCCESS) print '(a)', xpose_error_message()              ! names the argument at fault
!
! ## Column-major order (everything that ends in _f)
! A Fortran array a(d1, d2, ..., dr) is, in memory, the row-major (C order) array of shape (dr, ..., d1): the
! C API's arrays, like NumPy's, have their fastest axis last. The _f wrappers take Fortran-order extents
! `shape = [d1, ..., dr]` and a 1-based Fortran permutation `perm`, meaning
!
!   size(b, i) == size(a, perm(i))   and   b(j1, ..., jr) == a(i1, ..., ir)  where  i(perm(k)) = j(k)
!
! i.e. output dimension i is input dimension perm(i); for r = 2, perm = [2, 1] is b = transpose(a), and in
! general b = reshape(a, [(size(a, perm(k)), k = 1, r)], order = q) with q the inverse permutation of perm.
! They hand the C API, for the C index k = 0 .. r-1 of its arrays (Fortran's 1-based subscripts on the right),
!
!   shape_c[k] = shape(r - k)        axes_c[k] = r - perm(r - k)
!
! because C axis k is Fortran dimension r - k on either side: output C axis k is output dimension r - k, which
! takes input dimension perm(r - k), which is input C axis r - perm(r - k). (All 0-based:
! axes[k] = r-1 - (perm(r-k) - 1).) tests/fortran/test_fortran.f90 checks it for every permutation of ranks 2,
! 3 and 4 against loops written from the definition above, and rank 3 against reshape(..., order=).
!
! ## Errors
! Every call returns a status (a function result, or an `intent(out)` argument of the _f wrappers): one of the
! XPOSE_* codes below, the numbers of the C enum. xpose_error_message() is the calling thread's message for the
! last call: the C/C++ message (`elem_bytes = 0 must be >= 1`, `threads = -1 is negative`, ...) or, for the
! arguments the _f wrappers check themselves, one in Fortran's terms (`perm(2) = 1 repeats perm(1) ...`,
! `shape(3) = -1 is negative`). See docs/errors.md.
!
! ## Arguments, memory and the GPU
! The host wrappers take arrays of any type and rank (assumed-type, assumed-rank, contiguous): a non-contiguous
! section is copied in and out by the compiler, so pass whole arrays or contiguous slices for speed.
! `elem_bytes` is the element size in bytes (storage_size(a) / 8; complex(8) is 16). Extents (`shape`, `m`,
! `n`) may be 32- or 64-bit integers (their kind picks the specific procedure); `perm`, `elem_bytes`,
! `threads` (absent = all hardware threads) and `status` are default integers. The GPU calls
! (xpose_permute_f, xpose_transpose_f, and the raw interfaces) take device addresses as type(c_ptr) and a
! CUDA stream as integer(c_intptr_t), the size of a cudaStream_t and of CUDA Fortran's
! integer(cuda_stream_kind) on 64-bit systems (absent or XPOSE_DEFAULT_STREAM = the legacy default stream).
!
! ## Raw interfaces
! The C functions themselves, under their C names, are public too: plans as type(c_ptr) handles, data as
! type(c_ptr) (c_loc of a target array, or a device address), `axes` / `in_strides` / `out_strides` optional
! (absent = NULL: reversed axes, packed strides). They speak the C API's row-major convention.
module xpose
  use, intrinsic :: iso_c_binding, only: c_char, c_int, c_int32_t, c_int64_t, c_intptr_t, c_size_t, c_ptr, &
                                         c_null_char, c_null_ptr, c_associated, c_f_pointer, c_loc
  implicit none
  private

  ! ---- status codes (xpose_status in xpose.h) --------------------------------------------------------------
  integer(c_int), parameter, public :: XPOSE_SUCCESS = 0
  integer(c_int), parameter, public :: XPOSE_INVALID_ARGUMENT = 1
  integer(c_int), parameter, public :: XPOSE_UNSUPPORTED = 2
  integer(c_int), parameter, public :: XPOSE_MISALIGNED = 3
  integer(c_int), parameter, public :: XPOSE_OUT_OF_MEMORY = 4
  integer(c_int), parameter, public :: XPOSE_CUDA_ERROR = 5
  integer(c_int), parameter, public :: XPOSE_INTERNAL = 6

  !> The legacy default CUDA stream.
  integer(c_intptr_t), parameter, public :: XPOSE_DEFAULT_STREAM = 0

  ! ---- the C API, one interface per function (documented in xpose.h) ----------------------------------------
  public :: xpose_status_string, xpose_last_error_message, xpose_version_string
  public :: xpose_plan_create, xpose_plan_execute, xpose_plan_execute_host, xpose_plan_destroy
  public :: xpose_plan_bytes_moved, xpose_plan_describe
  public :: xpose_permute, xpose_permute_host, xpose_transpose, xpose_transpose_batched, xpose_transpose_host
  public :: xpose_inplace_plan_create, xpose_inplace_plan_workspace_bytes, xpose_inplace_plan_execute
  public :: xpose_inplace_plan_execute_host, xpose_inplace_plan_describe, xpose_inplace_plan_destroy
  public :: xpose_transpose_inplace, xpose_transpose_inplace_workspace_bytes, xpose_transpose_inplace_host

  ! ---- Fortran wrappers ---------------------------------------------------------------------------------------
  public :: xpose_error_message, xpose_status_name, xpose_version, xpose_describe_f
  public :: xpose_plan_create_f, xpose_plan_execute_host_f
  public :: xpose_permute_host_f, xpose_permute_f, xpose_transpose_host_f, xpose_transpose_f
  public :: xpose_transpose_inplace_host_f

  interface
    function xpose_status_string(status) bind(c, name="xpose_status_string")
      import :: c_int, c_ptr
      integer(c_int), value :: status
      type(c_ptr) :: xpose_status_string
    end function

    function xpose_last_error_message() bind(c, name="xpose_last_error_message")
      import :: c_ptr
      type(c_ptr) :: xpose_last_error_message
    end function

    function xpose_version_string() bind(c, name="xpose_version_string")
      import :: c_ptr
      type(c_ptr) :: xpose_version_string
    end function

    function xpose_plan_create(plan, rank, shape, axes, elem_bytes, in_strides, out_strides) &
        bind(c, name="xpose_plan_create")
      import :: c_int, c_int64_t, c_ptr
      type(c_ptr), intent(out) :: plan
      integer(c_int), value :: rank
      integer(c_int64_t), intent(in) :: shape(*)
      integer(c_int64_t), intent(in), optional :: axes(*)
      integer(c_int64_t), value :: elem_bytes
      integer(c_int64_t), intent(in), optional :: in_strides(*), out_strides(*)
      integer(c_int) :: xpose_plan_create
    end function

    function xpose_plan_execute(plan, d_in, d_out, stream) bind(c, name="xpose_plan_execute")
      import :: c_int, c_intptr_t, c_ptr
      type(c_ptr), value :: plan, d_in, d_out
      integer(c_intptr_t), value :: stream
      integer(c_int) :: xpose_plan_execute
    end function

    function xpose_plan_execute_host(plan, in, out, threads) bind(c, name="xpose_plan_execute_host")
      import :: c_int, c_ptr
      type(c_ptr), value :: plan, in, out
      integer(c_int), value :: threads
      integer(c_int) :: xpose_plan_execute_host
    end function

    subroutine xpose_plan_destroy(plan) bind(c, name="xpose_plan_destroy")
      import :: c_ptr
      type(c_ptr), value :: plan
    end subroutine

    function xpose_plan_bytes_moved(plan, bytes) bind(c, name="xpose_plan_bytes_moved")
      import :: c_int, c_int64_t, c_ptr
      type(c_ptr), value :: plan
      integer(c_int64_t), intent(out) :: bytes
      integer(c_int) :: xpose_plan_bytes_moved
    end function

    function xpose_plan_describe(plan, buf, size, needed) bind(c, name="xpose_plan_describe")
      import :: c_char, c_int, c_ptr, c_size_t
      type(c_ptr), value :: plan
      character(kind=c_char), intent(inout) :: buf(*)
      integer(c_size_t), value :: size
      integer(c_size_t), intent(out) :: needed
      integer(c_int) :: xpose_plan_describe
    end function

    function xpose_permute(d_in, d_out, rank, shape, axes, elem_bytes, in_strides, out_strides, stream) &
        bind(c, name="xpose_permute")
      import :: c_int, c_int64_t, c_intptr_t, c_ptr
      type(c_ptr), value :: d_in, d_out
      integer(c_int), value :: rank
      integer(c_int64_t), intent(in) :: shape(*)
      integer(c_int64_t), intent(in), optional :: axes(*)
      integer(c_int64_t), value :: elem_bytes
      integer(c_int64_t), intent(in), optional :: in_strides(*), out_strides(*)
      integer(c_intptr_t), value :: stream
      integer(c_int) :: xpose_permute
    end function

    function xpose_permute_host(in, out, rank, shape, axes, elem_bytes, in_strides, out_strides, threads) &
        bind(c, name="xpose_permute_host")
      import :: c_int, c_int64_t, c_ptr
      type(c_ptr), value :: in, out
      integer(c_int), value :: rank
      integer(c_int64_t), intent(in) :: shape(*)
      integer(c_int64_t), intent(in), optional :: axes(*)
      integer(c_int64_t), value :: elem_bytes
      integer(c_int64_t), intent(in), optional :: in_strides(*), out_strides(*)
      integer(c_int), value :: threads
      integer(c_int) :: xpose_permute_host
    end function

    function xpose_transpose(d_in, d_out, rows, cols, elem_bytes, stream) bind(c, name="xpose_transpose")
      import :: c_int, c_int64_t, c_intptr_t, c_ptr
      type(c_ptr), value :: d_in, d_out
      integer(c_int64_t), value :: rows, cols, elem_bytes
      integer(c_intptr_t), value :: stream
      integer(c_int) :: xpose_transpose
    end function

    function xpose_transpose_batched(d_in, d_out, batch, rows, cols, elem_bytes, stream) &
        bind(c, name="xpose_transpose_batched")
      import :: c_int, c_int64_t, c_intptr_t, c_ptr
      type(c_ptr), value :: d_in, d_out
      integer(c_int64_t), value :: batch, rows, cols, elem_bytes
      integer(c_intptr_t), value :: stream
      integer(c_int) :: xpose_transpose_batched
    end function

    function xpose_transpose_host(in, out, rows, cols, elem_bytes, threads) bind(c, name="xpose_transpose_host")
      import :: c_int, c_int64_t, c_ptr
      type(c_ptr), value :: in, out
      integer(c_int64_t), value :: rows, cols, elem_bytes
      integer(c_int), value :: threads
      integer(c_int) :: xpose_transpose_host
    end function

    function xpose_inplace_plan_create(plan, rows, cols, elem_bytes, batch, ld, batch_stride) &
        bind(c, name="xpose_inplace_plan_create")
      import :: c_int, c_int64_t, c_ptr
      type(c_ptr), intent(out) :: plan
      integer(c_int64_t), value :: rows, cols, elem_bytes, batch, ld, batch_stride
      integer(c_int) :: xpose_inplace_plan_create
    end function

    function xpose_inplace_plan_workspace_bytes(plan, bytes) bind(c, name="xpose_inplace_plan_workspace_bytes")
      import :: c_int, c_int64_t, c_ptr
      type(c_ptr), value :: plan
      integer(c_int64_t), intent(out) :: bytes
      integer(c_int) :: xpose_inplace_plan_workspace_bytes
    end function

    function xpose_inplace_plan_execute(plan, d_data, d_workspace, workspace_bytes, stream) &
        bind(c, name="xpose_inplace_plan_execute")
      import :: c_int, c_int64_t, c_intptr_t, c_ptr
      type(c_ptr), value :: plan, d_data, d_workspace
      integer(c_int64_t), value :: workspace_bytes
      integer(c_intptr_t), value :: stream
      integer(c_int) :: xpose_inplace_plan_execute
    end function

    function xpose_inplace_plan_execute_host(plan, data, threads) bind(c, name="xpose_inplace_plan_execute_host")
      import :: c_int, c_ptr
      type(c_ptr), value :: plan, data
      integer(c_int), value :: threads
      integer(c_int) :: xpose_inplace_plan_execute_host
    end function

    function xpose_inplace_plan_describe(plan, buf, size, needed) bind(c, name="xpose_inplace_plan_describe")
      import :: c_char, c_int, c_ptr, c_size_t
      type(c_ptr), value :: plan
      character(kind=c_char), intent(inout) :: buf(*)
      integer(c_size_t), value :: size
      integer(c_size_t), intent(out) :: needed
      integer(c_int) :: xpose_inplace_plan_describe
    end function

    subroutine xpose_inplace_plan_destroy(plan) bind(c, name="xpose_inplace_plan_destroy")
      import :: c_ptr
      type(c_ptr), value :: plan
    end subroutine

    function xpose_transpose_inplace(d_data, rows, cols, elem_bytes, d_workspace, workspace_bytes, stream) &
        bind(c, name="xpose_transpose_inplace")
      import :: c_int, c_int64_t, c_intptr_t, c_ptr
      type(c_ptr), value :: d_data
      integer(c_int64_t), value :: rows, cols, elem_bytes
      type(c_ptr), value :: d_workspace
      integer(c_int64_t), value :: workspace_bytes
      integer(c_intptr_t), value :: stream
      integer(c_int) :: xpose_transpose_inplace
    end function

    function xpose_transpose_inplace_workspace_bytes(rows, cols, elem_bytes, bytes) &
        bind(c, name="xpose_transpose_inplace_workspace_bytes")
      import :: c_int, c_int64_t
      integer(c_int64_t), value :: rows, cols, elem_bytes
      integer(c_int64_t), intent(out) :: bytes
      integer(c_int) :: xpose_transpose_inplace_workspace_bytes
    end function

    function xpose_transpose_inplace_host(data, rows, cols, elem_bytes, threads) &
        bind(c, name="xpose_transpose_inplace_host")
      import :: c_int, c_int64_t, c_ptr
      type(c_ptr), value :: data
      integer(c_int64_t), value :: rows, cols, elem_bytes
      integer(c_int), value :: threads
      integer(c_int) :: xpose_transpose_inplace_host
    end function

    ! Not in xpose.h: records this module's own argument errors as the thread's last message
    ! (src/api/c_api.cpp), so that xpose_error_message serves both layers.
    function set_error(status, message) bind(c, name="xpose_detail_set_error")
      import :: c_char, c_int
      integer(c_int), value :: status
      character(kind=c_char), intent(in) :: message(*)
      integer(c_int) :: set_error
    end function

    function c_strlen(s) bind(c, name="strlen")
      import :: c_ptr, c_size_t
      type(c_ptr), value :: s
      integer(c_size_t) :: c_strlen
    end function
  end interface

  ! ---- Fortran wrappers: the kind of the extents (32- or 64-bit integers) picks the specific ---------------

  !> call xpose_plan_create_f(plan, shape, perm, elem_bytes, status): a plan for b = permute(a, perm) (see the
  !> header comment) of Fortran-order `shape`; free it with xpose_plan_destroy(plan). Pure host code.
  interface xpose_plan_create_f
    module procedure plan_create_f_i4, plan_create_f_i8
  end interface

  !> call xpose_permute_host_f(in, out, shape, perm, elem_bytes, status [, threads]): out = permute(in, perm)
  !> on the CPU with `threads` threads (absent or 0 = all). Synchronous.
  interface xpose_permute_host_f
    module procedure permute_host_f_i4, permute_host_f_i8
  end interface

  !> call xpose_permute_f(d_in, d_out, shape, perm, elem_bytes, status [, stream]): the same on the GPU, device
  !> addresses as type(c_ptr), ordered on `stream` (absent = default stream). Never synchronizes.
  interface xpose_permute_f
    module procedure permute_f_i4, permute_f_i8
  end interface

  !> call xpose_transpose_host_f(a, b, m, n, elem_bytes, status [, threads]): b(n, m) = transpose(a(m, n)),
  !> CPU. Synchronous.
  interface xpose_transpose_host_f
    module procedure transpose_host_f_i4, transpose_host_f_i8
  end interface

  !> call xpose_transpose_f(d_a, d_b, m, n, elem_bytes, status [, stream]): the same on the GPU (type(c_ptr)
  !> device addresses), ordered on `stream`.
  interface xpose_transpose_f
    module procedure transpose_f_i4, transpose_f_i8
  end interface

  !> call xpose_transpose_inplace_host_f(a, m, n, elem_bytes, status [, threads]): the m x n matrix in `a`
  !> becomes its n x m transpose in the same memory, CPU. Synchronous.
  interface xpose_transpose_inplace_host_f
    module procedure transpose_inplace_host_f_i4, transpose_inplace_host_f_i8
  end interface

contains

  ! ---- strings ----------------------------------------------------------------------------------------------

  ! A NUL-terminated C string as a Fortran string ('' for NULL).
  function c_to_f_string(p) result(s)
    type(c_ptr), intent(in) :: p
    character(len=:), allocatable :: s
    character(kind=c_char), pointer :: chars(:)
    integer :: i, n
    if (.not. c_associated(p)) then
      s = ''
      return
    end if
    n = int(c_strlen(p))
    call c_f_pointer(p, chars, [n])
    allocate(character(len=n) :: s)
    do i = 1, n
      s(i:i) = chars(i)
    end do
  end function

  !> The calling thread's message for the last xpose call: the argument at fault and why ('' after a success).
  function xpose_error_message() result(message)
    character(len=:), allocatable :: message
    message = c_to_f_string(xpose_last_error_message())
  end function

  !> The name of a status code: 'success', 'invalid_argument', ...; 'unknown' for other values.
  function xpose_status_name(status) result(name)
    integer, intent(in) :: status
    character(len=:), allocatable :: name
    name = c_to_f_string(xpose_status_string(int(status, c_int)))
  end function

  !> 'MAJOR.MINOR.PATCH' of the library linked.
  function xpose_version() result(version)
    character(len=:), allocatable :: version
    version = c_to_f_string(xpose_version_string())
  end function

  !> The description of a plan made by xpose_plan_create(_f) (the C++ printout: problem in row-major terms,
  !> canonical form, algorithm); '' for a null plan (and the status of that call is in xpose_error_message).
  function xpose_describe_f(plan) result(text)
    type(c_ptr), intent(in) :: plan
    character(len=:), allocatable :: text
    character(kind=c_char) :: probe(1)
    character(kind=c_char), allocatable :: buf(:)
    integer(c_size_t) :: size, needed
    integer :: i
    if (xpose_plan_describe(plan, probe, 0_c_size_t, size) /= XPOSE_SUCCESS) then
      text = ''
      return
    end if
    allocate(buf(size))
    if (xpose_plan_describe(plan, buf, size, needed) /= XPOSE_SUCCESS) then
      text = ''
      return
    end if
    allocate(character(len=size - 1) :: text)
    do i = 1, int(size) - 1
      text(i:i) = buf(i)
    end do
  end function

  function itoa(v) result(s)
    integer(c_int64_t), intent(in) :: v
    character(len=:), allocatable :: s
    character(len=24) :: buf
    write(buf, '(i0)') v
    s = trim(buf)
  end function

  ! Records an invalid_argument error of this module's own and returns its code.
  function invalid(message) result(status)
    character(len=*), intent(in) :: message
    integer :: status
    status = int(set_error(XPOSE_INVALID_ARGUMENT, message // c_null_char))
  end function

  ! ---- Fortran order -> C order -------------------------------------------------------------------------

  ! Checks a Fortran-order problem (extents `shape`, permutation `perm`) and converts it to the C API's
  ! row-major extents and 0-based axes (header comment). Ranks above 8 pass to the C API, which refuses them.
  function to_c_order(shape, perm, shape_c, axes_c) result(status)
    integer(c_int64_t), intent(in) :: shape(:)
    integer, intent(in) :: perm(:)
    integer(c_int64_t), allocatable, intent(out) :: shape_c(:), axes_c(:)
    integer :: status
    integer :: r, i, k
    r = size(shape)
    allocate(shape_c(r), axes_c(r))
    if (size(perm) /= r) then
      status = invalid('perm has ' // itoa(int(size(perm), c_int64_t)) // ' entries but shape has ' // &
                       itoa(int(r, c_int64_t)))
      return
    end if
    do i = 1, r
      if (perm(i) < 1 .or. perm(i) > r) then
        status = invalid('perm(' // itoa(int(i, c_int64_t)) // ') = ' // itoa(int(perm(i), c_int64_t)) // &
                         ' is out of range 1..' // itoa(int(r, c_int64_t)))
        return
      end if
      do k = 1, i - 1
        if (perm(k) == perm(i)) then
          status = invalid('perm(' // itoa(int(i, c_int64_t)) // ') = ' // itoa(int(perm(i), c_int64_t)) // &
                           ' repeats perm(' // itoa(int(k, c_int64_t)) // '); perm must be a permutation of 1..' // &
                           itoa(int(r, c_int64_t)))
          return
        end if
      end do
    end do
    do i = 1, r
      if (shape(i) < 0) then
        status = invalid('shape(' // itoa(int(i, c_int64_t)) // ') = ' // itoa(shape(i)) // ' is negative')
        return
      end if
    end do
    do k = 0, r - 1
      shape_c(k + 1) = shape(r - k)
      axes_c(k + 1) = r - perm(r - k)
    end do
    status = XPOSE_SUCCESS
  end function

  ! The m x n extents of a 2-D wrapper, checked in Fortran's terms (the C API would name shape[1] for m).
  function check_extents(m, n) result(status)
    integer(c_int64_t), intent(in) :: m, n
    integer :: status
    status = XPOSE_SUCCESS
    if (m < 0) status = invalid('m = ' // itoa(m) // ' is negative')
    if (status == XPOSE_SUCCESS .and. n < 0) status = invalid('n = ' // itoa(n) // ' is negative')
  end function

  integer(c_int) function threads_or_all(threads)
    integer, intent(in), optional :: threads
    threads_or_all = 0
    if (present(threads)) threads_or_all = int(threads, c_int)
  end function

  integer(c_intptr_t) function stream_or_default(stream)
    integer(c_intptr_t), intent(in), optional :: stream
    stream_or_default = XPOSE_DEFAULT_STREAM
    if (present(stream)) stream_or_default = stream
  end function

  ! ---- plans ---------------------------------------------------------------------------------------------

  subroutine plan_create_f_i8(plan, shape, perm, elem_bytes, status)
    type(c_ptr), intent(out) :: plan
    integer(c_int64_t), intent(in) :: shape(:)
    integer, intent(in) :: perm(:), elem_bytes
    integer, intent(out) :: status
    integer(c_int64_t), allocatable :: shape_c(:), axes_c(:)
    plan = c_null_ptr
    status = to_c_order(shape, perm, shape_c, axes_c)
    if (status /= XPOSE_SUCCESS) return
    status = int(xpose_plan_create(plan, int(size(shape), c_int), shape_c, axes_c, int(elem_bytes, c_int64_t)))
  end subroutine

  subroutine plan_create_f_i4(plan, shape, perm, elem_bytes, status)
    type(c_ptr), intent(out) :: plan
    integer(c_int32_t), intent(in) :: shape(:)
    integer, intent(in) :: perm(:), elem_bytes
    integer, intent(out) :: status
    call plan_create_f_i8(plan, int(shape, c_int64_t), perm, elem_bytes, status)
  end subroutine

  !> call xpose_plan_execute_host_f(plan, in, out, status [, threads]): runs a plan on Fortran arrays, CPU.
  subroutine xpose_plan_execute_host_f(plan, in, out, status, threads)
    type(c_ptr), intent(in) :: plan
    type(*), intent(in), contiguous, target :: in(..)
    type(*), intent(inout), contiguous, target :: out(..)
    integer, intent(out) :: status
    integer, intent(in), optional :: threads
    status = int(xpose_plan_execute_host(plan, c_loc(in), c_loc(out), threads_or_all(threads)))
  end subroutine

  ! ---- one-shot permutations and transposes -----------------------------------------------------------------

  subroutine permute_host_f_i8(in, out, shape, perm, elem_bytes, status, threads)
    type(*), intent(in), contiguous, target :: in(..)
    type(*), intent(inout), contiguous, target :: out(..)
    integer(c_int64_t), intent(in) :: shape(:)
    integer, intent(in) :: perm(:), elem_bytes
    integer, intent(out) :: status
    integer, intent(in), optional :: threads
    integer(c_int64_t), allocatable :: shape_c(:), axes_c(:)
    status = to_c_order(shape, perm, shape_c, axes_c)
    if (status /= XPOSE_SUCCESS) return
    status = int(xpose_permute_host(c_loc(in), c_loc(out), int(size(shape), c_int), shape_c, axes_c, &
                                    int(elem_bytes, c_int64_t), threads=threads_or_all(threads)))
  end subroutine

  subroutine permute_host_f_i4(in, out, shape, perm, elem_bytes, status, threads)
    type(*), intent(in), contiguous, target :: in(..)
    type(*), intent(inout), contiguous, target :: out(..)
    integer(c_int32_t), intent(in) :: shape(:)
    integer, intent(in) :: perm(:), elem_bytes
    integer, intent(out) :: status
    integer, intent(in), optional :: threads
    call permute_host_f_i8(in, out, int(shape, c_int64_t), perm, elem_bytes, status, threads)
  end subroutine

  subroutine permute_f_i8(d_in, d_out, shape, perm, elem_bytes, status, stream)
    type(c_ptr), intent(in) :: d_in, d_out
    integer(c_int64_t), intent(in) :: shape(:)
    integer, intent(in) :: perm(:), elem_bytes
    integer, intent(out) :: status
    integer(c_intptr_t), intent(in), optional :: stream
    integer(c_int64_t), allocatable :: shape_c(:), axes_c(:)
    status = to_c_order(shape, perm, shape_c, axes_c)
    if (status /= XPOSE_SUCCESS) return
    status = int(xpose_permute(d_in, d_out, int(size(shape), c_int), shape_c, axes_c, int(elem_bytes, c_int64_t), &
                               stream=stream_or_default(stream)))
  end subroutine

  subroutine permute_f_i4(d_in, d_out, shape, perm, elem_bytes, status, stream)
    type(c_ptr), intent(in) :: d_in, d_out
    integer(c_int32_t), intent(in) :: shape(:)
    integer, intent(in) :: perm(:), elem_bytes
    integer, intent(out) :: status
    integer(c_intptr_t), intent(in), optional :: stream
    call permute_f_i8(d_in, d_out, int(shape, c_int64_t), perm, elem_bytes, status, stream)
  end subroutine

  ! a(m, n) is the row-major n x m matrix, b(n, m) the row-major m x n one: the C call is rows = n, cols = m.
  subroutine transpose_host_f_i8(a, b, m, n, elem_bytes, status, threads)
    type(*), intent(in), contiguous, target :: a(..)
    type(*), intent(inout), contiguous, target :: b(..)
    integer(c_int64_t), intent(in) :: m, n
    integer, intent(in) :: elem_bytes
    integer, intent(out) :: status
    integer, intent(in), optional :: threads
    status = check_extents(m, n)
    if (status /= XPOSE_SUCCESS) return
    status = int(xpose_transpose_host(c_loc(a), c_loc(b), n, m, int(elem_bytes, c_int64_t), threads_or_all(threads)))
  end subroutine

  subroutine transpose_host_f_i4(a, b, m, n, elem_bytes, status, threads)
    type(*), intent(in), contiguous, target :: a(..)
    type(*), intent(inout), contiguous, target :: b(..)
    integer(c_int32_t), intent(in) :: m, n
    integer, intent(in) :: elem_bytes
    integer, intent(out) :: status
    integer, intent(in), optional :: threads
    call transpose_host_f_i8(a, b, int(m, c_int64_t), int(n, c_int64_t), elem_bytes, status, threads)
  end subroutine

  subroutine transpose_f_i8(d_a, d_b, m, n, elem_bytes, status, stream)
    type(c_ptr), intent(in) :: d_a, d_b
    integer(c_int64_t), intent(in) :: m, n
    integer, intent(in) :: elem_bytes
    integer, intent(out) :: status
    integer(c_intptr_t), intent(in), optional :: stream
    status = check_extents(m, n)
    if (status /= XPOSE_SUCCESS) return
    status = int(xpose_transpose(d_a, d_b, n, m, int(elem_bytes, c_int64_t), stream_or_default(stream)))
  end subroutine

  subroutine transpose_f_i4(d_a, d_b, m, n, elem_bytes, status, stream)
    type(c_ptr), intent(in) :: d_a, d_b
    integer(c_int32_t), intent(in) :: m, n
    integer, intent(in) :: elem_bytes
    integer, intent(out) :: status
    integer(c_intptr_t), intent(in), optional :: stream
    call transpose_f_i8(d_a, d_b, int(m, c_int64_t), int(n, c_int64_t), elem_bytes, status, stream)
  end subroutine

  ! In place: the memory of a(m, n) (row-major n x m) afterwards holds b(n, m) (row-major m x n).
  subroutine transpose_inplace_host_f_i8(a, m, n, elem_bytes, status, threads)
    type(*), intent(inout), contiguous, target :: a(..)
    integer(c_int64_t), intent(in) :: m, n
    integer, intent(in) :: elem_bytes
    integer, intent(out) :: status
    integer, intent(in), optional :: threads
    status = check_extents(m, n)
    if (status /= XPOSE_SUCCESS) return
    status = int(xpose_transpose_inplace_host(c_loc(a), n, m, int(elem_bytes, c_int64_t), threads_or_all(threads)))
  end subroutine

  subroutine transpose_inplace_host_f_i4(a, m, n, elem_bytes, status, threads)
    type(*), intent(inout), contiguous, target :: a(..)
    integer(c_int32_t), intent(in) :: m, n
    integer, intent(in) :: elem_bytes
    integer, intent(out) :: status
    integer, intent(in), optional :: threads
    call transpose_inplace_host_f_i8(a, int(m, c_int64_t), int(n, c_int64_t), elem_bytes, status, threads)
  end subroutine

end module xpose
