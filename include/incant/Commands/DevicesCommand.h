//===- DevicesCommand.h - `incant devices` ----------------------*- C++ -*-===//
//
// Lists the devices each backend can use, as text or JSON.
//
// Exit codes of runDevices: 0, or 3 when no backend has any device.
//
//===----------------------------------------------------------------------===//
#ifndef INCANT_COMMANDS_DEVICESCOMMAND_H
#define INCANT_COMMANDS_DEVICESCOMMAND_H

#include <iosfwd>

namespace incant::driver {

struct DevicesCommand {
  bool Json = false;
};

int runDevices(const DevicesCommand &Cmd, std::ostream &Out, std::ostream &Err);

} // namespace incant::driver

#endif // INCANT_COMMANDS_DEVICESCOMMAND_H
