// SPDX-License-Identifier: MIT
#include "ui/common/columnmenu.h"

#include "ui/common/columnfitter.h"

#include <QHeaderView>
#include <QMenu>
#include <QSettings>
#include <QTableView>

namespace tidemark {

namespace {

// Columns the user laid out are theirs: the view's fitter leaves them alone from now on.
void keepUserLayout(const QTableView *view) {
    if (ColumnFitter *fitter = ColumnFitter::of(view))
        fitter->keepUserLayout();
}

} // namespace

void installColumnMenu(QTableView *view, int pinnedColumn) {
    QHeaderView *header = view->horizontalHeader();
    header->setContextMenuPolicy(Qt::CustomContextMenu);
    header->setSectionsMovable(true);
    QObject::connect(
        header, &QHeaderView::customContextMenuRequested, view,
        [view, header, pinnedColumn](const QPoint &pos) {
            auto *menu = new QMenu(view);
            menu->setObjectName(QStringLiteral("columnMenu"));
            menu->setAttribute(Qt::WA_DeleteOnClose);
            QAbstractItemModel *model = view->model();
            for (int column = 0; model && column < model->columnCount(); ++column) {
                QAction *action = menu->addAction(model->headerData(column, Qt::Horizontal).toString());
                action->setCheckable(true);
                action->setChecked(!header->isSectionHidden(column));
                action->setEnabled(column != pinnedColumn);
                QObject::connect(action, &QAction::toggled, header, [view, header, column](bool on) {
                    keepUserLayout(view);
                    header->setSectionHidden(column, !on);
                });
            }
            menu->addSeparator();
            QAction *fit = menu->addAction(QObject::tr("Fit Columns to Contents"));
            QObject::connect(fit, &QAction::triggered, view, [view] {
                keepUserLayout(view);
                view->resizeColumnsToContents();
            });
            menu->popup(header->mapToGlobal(pos));
        });
}

void saveColumns(QSettings &settings, const QString &key, const QTableView *view) {
    // Columns still fitted to the room are not remembered: the next window fits its own.
    const ColumnFitter *fitter = ColumnFitter::of(view);
    if (fitter && fitter->isFitting())
        settings.remove(key);
    else
        settings.setValue(key, view->horizontalHeader()->saveState());
}

void restoreColumns(const QSettings &settings, const QString &key, QTableView *view, int pinnedColumn) {
    if (view->horizontalHeader()->restoreState(settings.value(key).toByteArray()))
        keepUserLayout(view);
    view->horizontalHeader()->showSection(pinnedColumn);
}

} // namespace tidemark
