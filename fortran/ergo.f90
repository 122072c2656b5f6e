! ergo.f90 - the Fortran module `ergo`: ergo's C API (ergo.h) through ISO_C_BINDING.
!
!   use ergo
!   call ergo_init()
!   do step = 1, nsteps
!     call ergo_push(1, "Timestep")
!     call ergo_push(2, "FIND_HSML"); call find_hsml(); call ergo_pop(2, "FIND_HSML")
!     call ergo_step(step)
!     call ergo_pop(1, "Timestep")
!   end do
!   call ergo_finalize()
!
! Names are Fortran strings (trailing blanks dropped); every routine has an optional integer
! `rc` (0, or a negative ERGO_E* code).  Regions may name the source file and line for ergo's
! error lines (optional `file`, `line`; default "fortran", 0).  Settings: a type(ergo_setting)
! with core_khz, uncore_khz (kHz) and threads, 0 = inherit, pushed and popped as in C.
module ergo
  use, intrinsic :: iso_c_binding
  implicit none
  private

  public :: ergo_init, ergo_finalize, ergo_push, ergo_pop, ergo_poppush, ergo_step
  public :: ergo_report_json, ergo_report_csv, ergo_error_count
  public :: ergo_setting, ergo_setting_push, ergo_setting_pop, ergo_region_work

  ! ergo.h's ergo_setting: long, long, int.
  type, bind(c) :: ergo_setting
    integer(c_long) :: core_khz = 0
    integer(c_long) :: uncore_khz = 0
    integer(c_int) :: threads = 0
  end type ergo_setting

  interface
    integer(c_int) function c_init(cfg) bind(c, name="ergo_init")
      import :: c_int, c_ptr
      type(c_ptr), value :: cfg
    end function c_init
    integer(c_int) function c_finalize() bind(c, name="ergo_finalize")
      import :: c_int
    end function c_finalize
    subroutine c_push(level, name, file, line) bind(c, name="ergo_push_at")
      import :: c_int, c_char
      integer(c_int), value :: level, line
      character(kind=c_char), dimension(*) :: name, file
    end subroutine c_push
    subroutine c_pop(level, name, file, line) bind(c, name="ergo_pop_at")
      import :: c_int, c_char
      integer(c_int), value :: level, line
      character(kind=c_char), dimension(*) :: name, file
    end subroutine c_pop
    subroutine c_poppush(level, old, new, file, line) bind(c, name="ergo_poppush_at")
      import :: c_int, c_char
      integer(c_int), value :: level, line
      character(kind=c_char), dimension(*) :: old, new, file
    end subroutine c_poppush
    integer(c_int) function c_step(step) bind(c, name="ergo_step")
      import :: c_int, c_long
      integer(c_long), value :: step
    end function c_step
    integer(c_int) function c_report_json(path) bind(c, name="ergo_report_json")
      import :: c_int, c_char
      character(kind=c_char), dimension(*) :: path
    end function c_report_json
    integer(c_int) function c_report_csv(path) bind(c, name="ergo_report_csv")
      import :: c_int, c_char
      character(kind=c_char), dimension(*) :: path
    end function c_report_csv
    integer(c_long) function c_error_count() bind(c, name="ergo_error_count")
      import :: c_long
    end function c_error_count
    integer(c_int) function c_setting_push(s) bind(c, name="ergo_setting_push")
      import :: c_int, ergo_setting
      type(ergo_setting), intent(in) :: s
    end function c_setting_push
    subroutine c_region_work(units) bind(c, name="ergo_region_work")
      import :: c_double
      real(c_double), value :: units
    end subroutine c_region_work
    integer(c_int) function c_setting_pop() bind(c, name="ergo_setting_pop")
      import :: c_int
    end function c_setting_pop
  end interface

  ! The file a region names when its caller names none.  ergo keeps a region's file pointer while
  ! the region is open (its error lines say where an open region was pushed, at ergo_finalize or
  ! at exit), so this one is module storage, never a temporary freed after the call.
  character(kind=c_char, len=8), target, save :: no_file = c_char_'fortran'//c_null_char

contains

  ! A Fortran string as a C string: trailing blanks dropped, NUL added.
  function cstr(s) result(c)
    character(len=*), intent(in) :: s
    character(kind=c_char, len=len_trim(s) + 1) :: c
    c = trim(s)//c_null_char
  end function cstr

  integer(c_int) function line_of(line)
    integer, intent(in), optional :: line
    line_of = 0
    if (present(line)) line_of = int(line, c_int)
  end function line_of

  subroutine ergo_init(rc)
    integer, intent(out), optional :: rc
    integer(c_int) :: r
    r = c_init(c_null_ptr)
    if (present(rc)) rc = int(r)
  end subroutine ergo_init

  subroutine ergo_finalize(rc)
    integer, intent(out), optional :: rc
    integer(c_int) :: r
    r = c_finalize()
    if (present(rc)) rc = int(r)
  end subroutine ergo_finalize

  subroutine ergo_push(level, name, file, line)
    integer, intent(in) :: level
    character(len=*), intent(in) :: name
    character(len=*), intent(in), optional :: file
    integer, intent(in), optional :: line
    if (present(file)) then
      call c_push(int(level, c_int), cstr(name), cstr(file), line_of(line))
    else
      call c_push(int(level, c_int), cstr(name), no_file, line_of(line))
    end if
  end subroutine ergo_push

  subroutine ergo_pop(level, name, file, line)
    integer, intent(in) :: level
    character(len=*), intent(in) :: name
    character(len=*), intent(in), optional :: file
    integer, intent(in), optional :: line
    if (present(file)) then
      call c_pop(int(level, c_int), cstr(name), cstr(file), line_of(line))
    else
      call c_pop(int(level, c_int), cstr(name), no_file, line_of(line))
    end if
  end subroutine ergo_pop

  subroutine ergo_poppush(level, old_name, new_name, file, line)
    integer, intent(in) :: level
    character(len=*), intent(in) :: old_name, new_name
    character(len=*), intent(in), optional :: file
    integer, intent(in), optional :: line
    if (present(file)) then
      call c_poppush(int(level, c_int), cstr(old_name), cstr(new_name), cstr(file), &
                     line_of(line))
    else
      call c_poppush(int(level, c_int), cstr(old_name), cstr(new_name), no_file, line_of(line))
    end if
  end subroutine ergo_poppush

  subroutine ergo_step(step, rc)
    integer, intent(in) :: step
    integer, intent(out), optional :: rc
    integer(c_int) :: r
    r = c_step(int(step, c_long))
    if (present(rc)) rc = int(r)
  end subroutine ergo_step

  subroutine ergo_report_json(path, rc)
    character(len=*), intent(in) :: path
    integer, intent(out), optional :: rc
    integer(c_int) :: r
    r = c_report_json(cstr(path))
    if (present(rc)) rc = int(r)
  end subroutine ergo_report_json

  subroutine ergo_report_csv(path, rc)
    character(len=*), intent(in) :: path
    integer, intent(out), optional :: rc
    integer(c_int) :: r
    r = c_report_csv(cstr(path))
    if (present(rc)) rc = int(r)
  end subroutine ergo_report_csv

  integer function ergo_error_count()
    ergo_error_count = int(c_error_count())
  end function ergo_error_count

  subroutine ergo_setting_push(s, rc)
    type(ergo_setting), intent(in) :: s
    integer, intent(out), optional :: rc
    integer(c_int) :: r
    r = c_setting_push(s)
    if (present(rc)) rc = int(r)
  end subroutine ergo_setting_push

  subroutine ergo_setting_pop(rc)
    integer, intent(out), optional :: rc
    integer(c_int) :: r
    r = c_setting_pop()
    if (present(rc)) rc = int(r)
  end subroutine ergo_setting_pop

  ! Inside a region: how much work this execution did (any unit the code keeps for the region);
  ! the tuner compares configurations per unit of work.  A bad value is one warning, ignored.
  subroutine ergo_region_work(units)
    real(c_double), intent(in) :: units
    call c_region_work(units)
  end subroutine ergo_region_work

end module ergo
