! xpose from Fortran: transpose a matrix on the CPU and permute the dimensions of a 3-D array. Column-major
! order is handled by the module: extents and permutations are given as Fortran sees them.
program transpose_example
  use xpose
  implicit none
  real :: a(3, 4), b(4, 3), c(2, 3, 4), d(4, 2, 3)
  integer :: status, i

  a = reshape([(real(i), i = 1, size(a))], shape(a))
  call xpose_transpose_host_f(a, b, 3, 4, storage_size(a) / 8, status)        ! b = transpose(a)
  if (status /= XPOSE_SUCCESS) error stop xpose_error_message()
  do i = 1, 4
    print '(3f6.1)', b(i, :)
  end do

  c = reshape([(real(i), i = 1, size(c))], shape(c))
  call xpose_permute_host_f(c, d, shape(c), [3, 1, 2], storage_size(c) / 8, status)  ! d(k, i, j) = c(i, j, k)
  if (status /= XPOSE_SUCCESS) error stop xpose_error_message()
  if (any(b /= transpose(a)) .or. d(4, 2, 3) /= c(2, 3, 4)) error stop 'wrong result'
  print '(a, a)', 'xpose ', xpose_version()
end program transpose_example
