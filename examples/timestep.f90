! timestep.f90 - a small annotated timestep loop in Fortran, with the module `ergo`: three steps
! of Timestep { FIND_HSML { Primary, Secondary }, DRIFT }, a step report per step, and a setting
! pushed around DRIFT (it sets nothing: every field 0 inherits).  Its tree is that of the C
! program tests/cxx/scoped_c.c (ctest -R fortran_same_tree).
program timestep
  use ergo
  implicit none
  integer :: step, rc
  type(ergo_setting) :: inherit
  real(8) :: x

  x = 0
  call ergo_init(rc)
  if (rc /= 0) stop 1
  do step = 1, 3
    call ergo_push(1, "Timestep")
    call ergo_push(2, "FIND_HSML")
    call ergo_push(3, "Primary", __FILE__, __LINE__)
    call work(3)
    call ergo_region_work(3.0d0) ! this execution's work, so tuning compares per unit of it
    call ergo_poppush(3, "Primary", "Secondary")
    call work(2)
    call ergo_pop(3, "Secondary")
    call ergo_pop(2, "FIND_HSML")
    call ergo_push(2, "DRIFT")
    call ergo_setting_push(inherit)
    call work(1)
    call ergo_setting_pop()
    call ergo_pop(2, "DRIFT")
    call ergo_step(step)
    call ergo_pop(1, "Timestep")
  end do
  if (ergo_error_count() /= 0) stop 2
  call ergo_finalize()
  if (x < 0) print *, x

contains

  subroutine work(n)
    integer, intent(in) :: n
    integer :: i
    do i = 1, n*1000
      x = x + i*0.5d0
    end do
  end subroutine work

end program timestep
