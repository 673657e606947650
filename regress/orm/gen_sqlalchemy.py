# regress/orm/gen_sqlalchemy.py: the statements SQLAlchemy 1.4 (psycopg2)
# sends for the shapes of regress/sql/advice_orm.sql (cursor.query, captured
# with an after_cursor_execute event).  Creates chat_message in a throwaway
# database.  usage: PGHOST=... PGPORT=... /usr/bin/python3 gen_sqlalchemy.py
import os
from sqlalchemy import create_engine, Column, Integer, String, Boolean, DateTime, event, select, func, any_, or_, and_, not_
from sqlalchemy.dialects.postgresql import JSONB, ARRAY
from sqlalchemy.orm import declarative_base, Session
Base = declarative_base()
class Message(Base):
    __tablename__ = 'chat_message'
    id = Column(Integer, primary_key=True)
    room_id = Column(Integer, nullable=False)
    sender_id = Column(Integer, nullable=False)
    body = Column(String, nullable=False)
    is_read = Column(Boolean)
    sent_at = Column(DateTime(timezone=True), nullable=False)
    meta = Column(JSONB, nullable=False)
eng = create_engine('postgresql+psycopg2://', connect_args={'dbname': os.environ.get('PGDATABASE', 'ormgen')})
Base.metadata.create_all(eng)
sent = []
@event.listens_for(eng, 'after_cursor_execute')
def cap(conn, cursor, statement, params, context, many):
    sent.append(cursor.query.decode())
M = Message
shapes = {
 'sa_any': select(M).where(M.room_id == any_([3, 5, 8])).order_by(M.sent_at.desc()).limit(50),
 'sa_in': select(M).where(M.room_id.in_([3, 5, 8])),
 'sa_is_not_true': select(M).where(M.room_id == 3, M.is_read.is_not(True)),
 'sa_ilike': select(M).where(M.body.ilike('hello%')),
 'sa_lower': select(M).where(func.lower(M.body) == 'hello'),
 'sa_astext': select(M).where(M.meta['kind'].astext == 'system'),
 'sa_or_cols': select(M).where(or_(M.sender_id == 7, M.room_id == 7)),
 'sa_not': select(M).where(M.room_id == 3, not_(M.is_read)),
}
with Session(eng) as s:
    for name, st in shapes.items():
        sent.clear(); s.execute(st).all()
        print('--', name); print(sent[-1] + ';')
