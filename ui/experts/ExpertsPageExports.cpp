// The Experts page's charts and their export titles, apart from the page's layout and jobs: every
// chart names the model, the tensor and what it plots; a tile names its expert.

#include "ui/experts/ExpertsPage.h"

#include "ui/common/PlotExportMenu.h"
#include "ui/experts/ExpertChartTitle.h"
#include "ui/experts/ExpertGridView.h"
#include "ui/experts/ExpertQuantErrorView.h"
#include "ui/experts/ExpertSimilarityView.h"
#include "ui/experts/ExpertStatisticsView.h"
#include "core/types/GgmlType.h"

#include <QComboBox>
#include <QStringList>

void ExpertsPage::installChartExports()
{
    // `what` of the current tensor, and of which model.
    const auto title = [this](const QString& what) {
        return expertChartTitle(m_model.get(), m_tensor ? tr("%1 of %2").arg(what, expertTensorName(*m_tensor)) : what);
    };
    m_grid->setTileExportTitle([title](std::uint64_t expert) { return title(tr("Weights of expert %1").arg(expert)); });
    addPlotExport(m_statisticsView->rmsPlot(), [title]() { return title(tr("RMS of each expert")); });
    addPlotExport(m_similarity->similarityPlot(), [title]() { return title(tr("Cosine similarity between experts")); });
    addPlotExport(m_similarity->routerPlot(), [title]() { return title(tr("Router weight norm of each expert")); });
    addPlotExport(m_quantError->plot(), [this, title]() {
        QStringList types;
        for (const std::uint32_t type : m_quantError->types())
            types << QString::fromStdString(gguf::typeName(type));
        return title(tr("%1 per expert, quantized to %2").arg(m_quantError->metricCombo()->currentText(), types.join(QStringLiteral(", "))));
    });
}
