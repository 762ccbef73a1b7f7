! Fortran consumer of an installed xpose: the module xpose (installed .mod) and the library xpose_fortran.
program xpose_fortran_consumer
  use xpose
  implicit none
  real(8) :: a(3, 5), b(5, 3)
  integer :: status, i
  a = reshape([(real(i, 8), i = 1, size(a))], shape(a))
  call xpose_transpose_host_f(a, b, 3, 5, storage_size(a) / 8, status)
  if (status /= XPOSE_SUCCESS) error stop xpose_error_message()
  if (any(b /= transpose(a))) error stop 2
  print '(3a)', 'xpose ', xpose_version(), ' found and working from Fortran'
end program xpose_fortran_consumer
