// SPDX-License-Identifier: MIT
#pragma once

#include "model/domain/alertsettings.h"
#include "model/domain/connectionspec.h"
#include "model/domain/position.h"
#include "model/domain/schedulespec.h"
#include "model/domain/tablespec.h"

#include <QByteArray>
#include <QList>
#include <QString>
#include <QStringList>
#include <functional>

namespace tidemark {

class Workspace;

// A workspace's configuration and positions as one reviewable JSON document (`workspace
// export`, `workspace apply`): connections (never a secret: a password lives in an environment
// variable, the keychain or ~/.pgpass, none of which the document holds), tables with their
// settings and positions, schedules, and alerts (webhook secrets stay ${NAME} references).
// Keys are sorted and ids left out: a table is known by its target ("conn:table", which takes
// one table's rows), a schedule lists the targets of its tables. So a workspace built from a
// document exports the same bytes, whatever ids it gave.
struct WorkspaceDocument {
    struct Table {
        TableSpec spec; // configuration and active flag; id 0
        Position position;
    };
    struct Schedule {
        ScheduleSpec spec;  // id 0, tableIds empty
        QStringList tables; // targets; empty = every active table
    };
    QList<ConnectionSpec> connections;
    QList<Table> tables;
    QList<Schedule> schedules;
    AlertSettings alerts;   // empty: none
    int maxConcurrency = 0; // Workspace::maxConcurrency(); 0: none

    // The document of `workspace`, as indented JSON with a final newline.
    static QByteArray exportFrom(Workspace &workspace);
    // Reads a document; ValidationError naming the key at fault ("tables[2].mode: ...").
    static WorkspaceDocument parse(const QByteArray &json);
};

// `workspace apply`: what makes a workspace match a document, planned first, then done.
// Connections, schedules and the alerts are matched by name, tables by target. A table or
// schedule the document lacks is removed only with `prune` (a connection too, once no table
// uses it). A table with an iteration queued or running is refused any change (ValidationError
// naming it) before anything is done. A table added with a position takes its target over from
// the workspace that copied into it (as `run --adopt`), so its next run goes on from there; a
// position that differs from the target's is moved as `table set-position` moves it (state row
// in a target transaction, recorded with cause "apply"). Settings change as `table edit` changes
// them: a change that voids a position is refused.
class WorkspaceApply {
public:
    struct Step {
        QString text; // "add table src:orders -> dst:orders at 2025-01-01T00:00:00Z"
        std::function<void()> run;
    };

    WorkspaceApply(Workspace &workspace, WorkspaceDocument document, bool prune);
    const QList<Step> &plan() const { return m_steps; }
    // Does the plan's steps in order; throws Error (ValidationError for refusals) at the first
    // that fails, the steps before it done.
    void apply();

private:
    void planConnections();
    void planTables();
    void planSchedules();
    void planAlerts();
    void planCaps();
    void planPrune();
    void step(const QString &text, std::function<void()> run);
    void addTable(const WorkspaceDocument::Table &table);
    void movePositionTo(const QString &target, const Position &position);
    qint64 liveTableId(const QString &target);

    Workspace &m_workspace;
    WorkspaceDocument m_document;
    bool m_prune = false;
    QList<Step> m_steps;
};

} // namespace tidemark
