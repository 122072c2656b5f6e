! exit_stop.f90 - a Fortran program that ends in STOP or ERROR STOP inside its regions, without
! ergo_finalize, as Fortran codes end on a failed check (tests/exit.cmake): ergo finalizes at
! exit.  `exit_stop error` ends in ERROR STOP 2, `exit_stop` in a plain STOP; both after three
! steps of Timestep > solve, with Timestep > converge and a setting still open.
program exit_stop
  use ergo
  implicit none
  character(len=16) :: mode
  integer :: step, rc
  type(ergo_setting) :: inherit
  real(8) :: x

  mode = ''
  if (command_argument_count() > 0) call get_command_argument(1, mode)
  x = 0
  call ergo_init(rc)
  if (rc /= 0) stop 1
  do step = 1, 3
    call ergo_push(1, 'Timestep')
    call ergo_push(2, 'solve')
    call work(20000)
    call ergo_pop(2, 'solve')
    call ergo_pop(1, 'Timestep')
    call ergo_step(step)
  end do
  call ergo_push(1, 'Timestep')
  call ergo_push(2, 'converge')
  call ergo_setting_push(inherit)
  call work(1000)
  print '(a,a)', 'ending by ', trim(merge('error stop', 'stop      ', trim(mode) == 'error'))
  if (trim(mode) == 'error') error stop 2
  if (x < 0) print *, x
  stop
contains
  subroutine work(n)
    integer, intent(in) :: n
    integer :: k
    do k = 1, n
      x = x + sqrt(real(k, 8))
    end do
  end subroutine work
end program exit_stop
