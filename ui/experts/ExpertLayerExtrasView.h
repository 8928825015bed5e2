#pragma once
// What a MoE layer holds beside its routed experts: the shared experts (dense, used for every
// token) and the biases and scales of the experts and the router, one row per tensor (role,
// name, shape, type, size); below, the per-expert values of the biases and scales that have one
// value (or one vector) per expert, one row per expert. Only the current layer's small bias
// tensors are read (at most kMaxReadElements values each), never the expert weights, and they
// are read on the job pool: a URL model's bytes come over the network. Until they arrive the
// value cells show an ellipsis; another layer makes the older read stale.

#include "core/experts/ExpertIndex.h"
#include "core/gguf/Model.h"
#include "ui/session/JobRunner.h"

#include <QWidget>
#include <memory>
#include <vector>

class QLabel;
class QTableWidget;

class ExpertLayerExtrasView : public QWidget {
    Q_OBJECT
public:
    explicit ExpertLayerExtrasView(QWidget* parent = nullptr);

    // `layer` may be null (nothing to show); `expertCount` sizes the per-expert table.
    void setLayer(std::shared_ptr<const gguf::Model> model, const gguf::ExpertLayer* layer, std::uint64_t expertCount);

    QTableWidget* tensorTable() const { return m_tensors; }
    QTableWidget* valueTable() const { return m_values; }
    QLabel* summary() const { return m_summary; }
    // Whether the per-expert values of the current layer are still being read.
    bool isReadingValues() const { return m_jobs.isRunning(); }

    // A bias larger than this is listed but its values are not read.
    static constexpr std::uint64_t kMaxReadElements = std::uint64_t{1} << 20;

    enum TensorColumn { RoleColumn, NameColumn, ShapeColumn, TypeColumn, SizeColumn, TensorColumnCount };

signals:
    // The per-expert values of the current layer are in the value table (or say why not).
    void valuesReady();

private:
    // What one read bias gives the table: its values, or why there are none.
    struct BiasValues {
        std::vector<float> values;
        QString failure;
    };
    void showValues(const std::vector<const gguf::TensorInfo*>& perExpert, std::uint64_t expertCount, const std::vector<BiasValues>& read);

    QLabel* m_summary;
    QTableWidget* m_tensors;
    QTableWidget* m_values;
    JobRunner m_jobs{this};  // reading the current layer's biases
};
