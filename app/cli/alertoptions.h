// SPDX-License-Identifier: MIT
#pragma once

#include "app/cli/commandspec.h"
#include "model/domain/alertsettings.h"

#include <QList>
#include <QString>

namespace tidemark {
class Workspace;
}

namespace tidemark::cli {

class SubcommandParser;

// The options of `alert set`, which `schedule add` and `schedule edit` take for a schedule's
// own alerts.
QList<OptionSpec> alertOptions();
// Applies the alert options given (only those; "" removes the hook or webhook) to `settings`.
// Returns whether any was given. Refuses --on or a time limit with neither a hook nor a webhook
// to apply it to. A webhook secret in clear is refused when stored (checkWebhookUrl).
bool applyAlertOptions(const SubcommandParser &parser, AlertSettings &settings, const QString &command);
// A hook never gets the variables holding the workspace's secrets (the dispatcher withholds
// them); asking for one is refused here, so nobody counts on a variable that never arrives.
void refuseSecretHookEnv(Workspace &workspace, const AlertSettings &settings, const QString &command);

} // namespace tidemark::cli
